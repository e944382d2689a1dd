import ArgumentParser
import Foundation
import TileGeometry
import Trails

/// `W,S,E,N` as every box option reads it (`build --bounds`, `bundle extract --bbox`,
/// `trails search --bbox`): four finite numbers in degrees, separated by commas (or by spaces
/// alone), latitudes within ±90, longitudes within ±180, south not north of north. Whether west
/// may lie east of east is each option's own rule. A refusal is a usage error naming `option`.
struct BoxText {
    let west: Double, south: Double, east: Double, north: Double
    /// The numbers as typed (trimmed), for messages.
    let typed: [String]

    init(_ text: String, option: String) throws {
        try refuseOptionAsValue(text, option: option)
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts =
            (trimmed.contains(",") ? trimmed.split(separator: ",", omittingEmptySubsequences: false) : trimmed.split(separator: " "))
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 4 else { throw Self.refusal(option, "4 numbers are needed, got \(parts.count)") }
        var values = [Double]()
        for part in parts {
            guard let value = Double(part) else {
                throw Self.refusal(option, "\(part.isEmpty ? "\"\"" : String(part.prefix(40))) is not a number")
            }
            guard value.isFinite else { throw Self.refusal(option, "\(part) is not a finite number") }
            values.append(value)
        }
        (west, south, east, north) = (values[0], values[1], values[2], values[3])
        typed = parts
        for (i, name) in [(1, "south"), (3, "north")] where abs(values[i]) > 90 {
            throw Self.refusal(option, "\(name) \(parts[i]) is outside -90...90")
        }
        for (i, name) in [(0, "west"), (2, "east")] where abs(values[i]) > 180 {
            throw Self.refusal(option, "\(name) \(parts[i]) is outside -180...180")
        }
        if south > north { throw Self.refusal(option, "south \(parts[1]) is north of north \(parts[3])") }
    }

    /// A usage error naming `option` and what it takes, then `reason`: why the text was refused.
    static func refusal(_ option: String, _ reason: String) -> ValidationError {
        ValidationError("\(option) must be WEST,SOUTH,EAST,NORTH in degrees, e.g. -106,38,-104,40: \(reason)")
    }
}

/// `build --bounds W,S,E,N` and `bundle extract --bbox W,S,E,N`: a box in degrees, west below
/// east and south below north.
struct BoundsArgument: ExpressibleByArgument {
    let bounds: GeoBounds

    init?(argument: String) {
        guard let b = try? Self(argument, option: "--bounds") else { return nil }
        self = b
    }

    private init(_ text: String, option: String) throws {
        let box = try BoxText(text, option: option)
        guard box.west != box.east else { throw BoxText.refusal(option, "west and east are both \(box.typed[0]): the box is empty") }
        guard box.west < box.east else { throw BoxText.refusal(option, "west \(box.typed[0]) is east of east \(box.typed[2])") }
        guard box.south < box.north else { throw BoxText.refusal(option, "south and north are both \(box.typed[1]): the box is empty") }
        bounds = GeoBounds(west: box.west, south: box.south, east: box.east, north: box.north)
    }

    /// `build --bounds`.
    @Sendable static func parseBounds(_ text: String) throws -> BoundsArgument { try BoundsArgument(text, option: "--bounds") }

    /// `bundle extract --bbox`.
    @Sendable static func parseBBox(_ text: String) throws -> BoundsArgument { try BoundsArgument(text, option: "--bbox") }
}

/// `trails search --bbox W,S,E,N` in degrees; west east of east is a box across the antimeridian
/// (west > 0 > east).
struct TrailBoxArgument: ExpressibleByArgument {
    let box: TrailBox

    init?(argument: String) {
        guard let b = try? Self.parse(argument) else { return nil }
        self = b
    }

    private init(box: TrailBox) { self.box = box }

    @Sendable static func parse(_ text: String) throws -> TrailBoxArgument {
        let b = try BoxText(text, option: "--bbox")
        if b.west > b.east, !(b.west > 0 && b.east < 0) {
            throw BoxText.refusal(
                "--bbox", "west \(b.typed[0]) is east of east \(b.typed[2]) (a box across the antimeridian has west > 0 > east)")
        }
        return TrailBoxArgument(box: TrailBox(west: b.west, south: b.south, east: b.east, north: b.north))
    }
}
