import Foundation
import Hummingbird
import Trails
import TrailMapAPI

/// `GET /trails`'s query string as a `TrailQuery`; every parameter checked and a bad one named:
/// 400 for what the document's schema refuses (not a number, too long), 422 for values it allows
/// that contradict each other or name nothing (an unknown difficulty, a radius without a point).
extension StoreAPI {
    /// Radius of a search near a point when none is given, in kilometres.
    static let defaultTrailRadiusKm = 25.0

    /// `value(name)`: the query parameter `name` as sent, or nil.
    func trailQuery(_ value: (String) -> String?) throws -> (TrailQuery, TrailPlace?) {
        var query = TrailQuery()
        var place: TrailPlace?
        func text(_ name: String, max: Int = 200) throws -> String? {
            guard let v = value(name) else { return nil }
            guard v.utf8.count <= max else { throw APIError.badRequest("\(name): longer than \(max) bytes") }
            return v
        }
        func number(_ name: String) throws -> Double? {
            guard let v = try text(name, max: 32) else { return nil }
            guard let d = Double(v), d.isFinite else { throw APIError.badRequest("\(name): not a number: \(v.prefix(32))") }
            return d
        }
        func numbers(_ name: String, count: Int) throws -> [Double]? {
            guard let v = try text(name, max: 128) else { return nil }
            let parts = v.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == count, parts.allSatisfy({ $0?.isFinite == true }) else {
                throw APIError.badRequest("\(name): \(count) numbers separated by commas")
            }
            return parts.map { $0! }
        }
        func list<T>(_ name: String, _ make: (String) -> T?, allowed: [String]) throws -> [T] {
            guard let v = try text(name) else { return [] }
            guard !v.isEmpty else {
                throw APIError.badRequest("\(name): give one or more of \(allowed.joined(separator: ", ")), comma-separated")
            }
            return try v.split(separator: ",", omittingEmptySubsequences: false).map { word in
                let w = word.trimmingCharacters(in: .whitespaces).lowercased()
                guard let made = make(w) else {
                    throw APIError(
                        .unprocessableContent, code: "invalid_trail_query",
                        message: "\(name): '\(w.prefix(32))' is not one of \(allowed.joined(separator: ", "))")
                }
                return made
            }
        }
        if let near = try text("near") {
            let parts = near.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            if parts.count == 2, let lat = parts[0], let lon = parts[1], lat.isFinite, lon.isFinite {
                query.near = LonLat(lon: lon, lat: lat)
            } else {
                guard let found = places.lookup(near) else {
                    throw APIError.notFound(
                        "unknown_place", "near: no place named '\(near.prefix(64))' (give LAT,LON or a place of the server's list)")
                }
                query.near = LonLat(lon: found.lon, lat: found.lat)
                place = TrailPlace(name: found.name, point: [found.lon, found.lat])
            }
            query.radiusKm = Self.defaultTrailRadiusKm
        }
        if let r = try number("radiusKm") { query.radiusKm = r }
        if let b = try numbers("bbox", count: 4) { query.bbox = TrailBox(west: b[0], south: b[1], east: b[2], north: b[3]) }
        // A name without a letter or digit searches no name (as an empty one).
        query.text = try text("q").flatMap { $0.contains(where: { $0.isLetter || $0.isNumber }) ? $0 : nil }
        query.difficulties = Set(try list("difficulty", TrailDifficulty.init(rawValue:), allowed: TrailResult.difficulties))
        query.uses = TrailUses(try list("uses", TrailUse.init(rawValue:), allowed: TrailResult.uses))
        query.excludeUses = TrailUses(try list("excludeUses", TrailUse.init(rawValue:), allowed: TrailResult.uses))
        query.minLengthKm = try number("minLengthKm")
        query.maxLengthKm = try number("maxLengthKm")
        query.maxAscentM = try number("maxAscentM")
        query.maxGradePct = try number("maxGradePct")
        if let s = try text("sort") {
            guard let sort = TrailQuery.Sort(rawValue: s) else {
                throw APIError.badRequest("sort: one of \(TrailQuery.Sort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.sort = sort
        }
        if let l = try text("limit", max: 8) {
            guard let n = Int(l) else { throw APIError.badRequest("limit: a whole number") }
            query.limit = n
        }
        query.cursor = try text("cursor", max: 512).flatMap { $0.isEmpty ? nil : $0 }
        do { try query.validate() } catch { throw APIError(TrailSearchError.query(error)) }
        return (query, place)
    }
}
