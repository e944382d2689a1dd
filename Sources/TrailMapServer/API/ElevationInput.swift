import Foundation
import HTTPTypes
import Terrain
import TrailMapAPI

/// Reads the elevation routes' input (query parameters, GeoJSON bodies) into points, refusing
/// bad input with an answer that names the field: 400 for what the document's schema refuses
/// too (malformed), 422 for well-formed values out of range or too many.
enum ElevationInput {
    /// `points=LAT,LON;LAT,LON...`: the count is checked before anything is parsed.
    static func points(_ raw: String?) throws -> [GeoPoint] {
        guard let raw, !raw.isEmpty else { throw invalid("points", "give points=LAT,LON;LAT,LON...") }
        let count = raw.utf8.reduce(1) { $1 == UInt8(ascii: ";") ? $0 + 1 : $0 }
        guard count <= ElevationAnswer.maxPoints else {
            throw outOfRange("points", "\(count) points is more than the limit of \(ElevationAnswer.maxPoints)")
        }
        var out = [GeoPoint]()
        for (i, pair) in raw.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
                throw invalid("points", "point \(i) is not LAT,LON: \(pair.prefix(60))")
            }
            out.append(GeoPoint(lat: lat, lon: lon))
        }
        do { try LineValidation.checkCoordinates(out) } catch { throw APIError(error, field: "points") }
        return out
    }

    /// A GeoJSON LineString, or a Feature holding one, as points.
    static func line(_ body: JSONValue) throws -> [GeoPoint] {
        guard case let .object(o) = body else { throw invalid("body", "send a GeoJSON LineString or a Feature holding one") }
        var geometry = o
        var field = "coordinates"
        if o["type"] == .string("Feature") {
            guard case let .object(g)? = o["geometry"] else { throw invalid("geometry", "the Feature has no LineString geometry") }
            geometry = g
            field = "geometry.coordinates"
        }
        guard geometry["type"] == .string("LineString") else {
            throw invalid(field == "coordinates" ? "type" : "geometry.type", "the geometry must be a LineString")
        }
        guard case let .array(positions)? = geometry["coordinates"] else { throw invalid(field, "a LineString needs coordinates") }
        // The count is checked before any position is read.
        do { try LineValidation.checkCount(positions.count, limit: ProfileLine.maxPositions) } catch { throw APIError(error, field: field) }
        var out = [GeoPoint]()
        out.reserveCapacity(positions.count)
        for (i, p) in positions.enumerated() {
            guard case let .array(numbers) = p, (2...3).contains(numbers.count), let lon = numbers[0].number, let lat = numbers[1].number
            else {
                throw invalid("\(field)[\(i)]", "a position is [longitude, latitude]")
            }
            out.append(GeoPoint(lat: lat, lon: lon))
        }
        do { try LineValidation.checkCoordinates(out) } catch { throw APIError(error, field: field) }
        return out
    }

    /// `spacingM`: metres between samples, or nil for the default.
    static func spacing(_ raw: String?) throws -> Double? {
        guard let raw else { return nil }
        guard let v = Double(raw), v.isFinite else { throw invalid("spacingM", "not a number: \(raw.prefix(40))") }
        guard v > 0, v <= maxSpacing else { throw outOfRange("spacingM", "\(v) is not between 0 (excluded) and \(Int(maxSpacing)) metres") }
        return v
    }

    /// The widest spacing asked for, metres.
    static let maxSpacing = 100_000.0

    static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(
            .badRequest,
            code: "invalid_\(field.split(separator: "[").first.map(String.init)?.replacingOccurrences(of: ".", with: "_") ?? field)",
            message: "\(field): \(message)")
    }

    static func outOfRange(_ field: String, _ message: String) -> APIError {
        APIError(.unprocessableContent, code: "invalid_\(field.replacingOccurrences(of: ".", with: "_"))", message: "\(field): \(message)")
    }
}

extension JSONValue {
    /// The value as a number, when it is one.
    var number: Double? {
        switch self {
        case let .integer(i): Double(i)
        case let .number(d): d
        default: nil
        }
    }
}

extension APIError {
    /// The answer to a profile error; `field` names the parameter or body member it is about.
    init(_ e: ProfileError, field: String) {
        switch e {
        case .tooFewPoints, .tooManyPoints, .latitudeOutOfRange, .longitudeOutOfRange, .badSpacing:
            self = ElevationInput.outOfRange(field, e.description)
        case .noElevation:
            self.init(.unprocessableContent, code: "outside_terrain", message: "\(field): \(e.description)")
        case .source:
            self.init(.serviceUnavailable, code: "terrain_unavailable", message: "the terrain cannot be read")
        }
    }
}
