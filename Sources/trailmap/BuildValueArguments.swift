import ArgumentParser
import Foundation
import Raster
import TileGeometry
import Terrain

/// A value that is numbers, which may be negative (so its option is parsed unconditionally):
/// another option in its place (`--scale --out x`) is a missing value.
func refuseOptionAsValue(_ text: String, option: String) throws {
    if text.hasPrefix("--"), text.dropFirst(2).first?.isLetter == true {
        throw ValidationError("\(option) needs a value before \(text)")
    }
}

/// The numbers of a value of `trailmap build`, or nil; another option in its place is refused.
private func numberText(_ text: String, option: String) throws -> [Double]? {
    try refuseOptionAsValue(text, option: option)
    return NumberList.numbers(text)
}

/// `--src-nodata V[,V...]`: one nodata value for every band or one per colour band.
struct NumberList: ExpressibleByArgument {
    let values: [Double]

    init?(argument: String) {
        guard let values = Self.numbers(argument) else { return nil }
        self.values = values
    }

    /// `--src-nodata`, parsed once; a bad value is a usage error saying what is accepted.
    @Sendable static func nodata(_ text: String) throws -> NumberList {
        guard try numberText(text, option: "--src-nodata") != nil, let list = NumberList(argument: text) else {
            throw ValidationError("--src-nodata must be a number or comma-separated numbers, e.g. 0 or 255,255,255")
        }
        return list
    }

    /// Comma- or space-separated finite numbers (a leading space, `NegativeNumberArguments`' mark, is
    /// trimmed), or nil when any is not one.
    static func numbers(_ text: String) -> [Double]? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == " " })
        let values = parts.compactMap { Double($0) }
        return !parts.isEmpty && values.count == parts.count && values.allSatisfy(\.isFinite) ? values : nil
    }
}

/// `--scale MIN,MAX`: the value range mapped to 0-255, MIN below MAX.
struct ScaleRange: ExpressibleByArgument {
    let min: Double
    let max: Double

    init?(argument: String) {
        guard let v = NumberList.numbers(argument), v.count == 2, v[0] < v[1] else { return nil }
        (min, max) = (v[0], v[1])
    }

    @Sendable static func parse(_ text: String) throws -> ScaleRange {
        guard let v = try numberText(text, option: "--scale"), v.count == 2 else {
            throw ValidationError("--scale must be MIN,MAX, e.g. 0,4000")
        }
        guard let range = ScaleRange(argument: text) else {
            throw ValidationError("--scale \(text.trimmingCharacters(in: .whitespaces)): MIN must be less than MAX")
        }
        return range
    }
}

/// `--trails-zooms Z0-Z1`: zooms from 0 to the highest, Z0 at most Z1.
struct ZoomRangeArgument: ExpressibleByArgument {
    let zooms: ClosedRange<Int>

    init?(argument: String) {
        let parts = argument.split(separator: "-").map { Int($0) }
        guard parts.count == 2, let lo = parts[0], let hi = parts[1], 0 <= lo, lo <= hi, hi <= TileID.maxZoom else { return nil }
        zooms = lo...hi
    }

    @Sendable static func parse(_ text: String) throws -> ZoomRangeArgument {
        guard let z = ZoomRangeArgument(argument: text) else {
            throw ValidationError("--trails-zooms must be Z0-Z1 with 0 <= Z0 <= Z1 <= \(TileID.maxZoom), e.g. 10-16")
        }
        return z
    }
}

/// `--format`: a tile format (png, webp, jpeg), or with `--dem` a terrain encoding (terrarium,
/// terrain-rgb).
struct TileFormatArgument: ExpressibleByArgument, CustomStringConvertible {
    /// The value as given.
    let text: String
    let tiles: TileFormat?
    let terrain: TerrainEncoding?

    init?(argument: String) {
        text = argument
        tiles = TileFormat(metadata: argument)
        terrain = TerrainArguments.encoding(name: argument)
        if tiles == nil && terrain == nil { return nil }
    }

    var description: String { text }

    @Sendable static func parse(_ text: String) throws -> TileFormatArgument {
        guard let f = TileFormatArgument(argument: text) else {
            throw ValidationError("--format must be png, webp or jpeg (or terrarium or terrain-rgb with --dem), not \(text)")
        }
        return f
    }
}
