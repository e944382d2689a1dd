import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Terrain
import Trails

/// The line a device profile is made of when it is read from a GPX file (its count checked while
/// it is read), or an installed trail's.
enum ProfileLineInput {
    /// The track points (else route points) of a GPX file, in order.
    static func gpx(_ path: String, limit: Int) throws -> [GeoPoint] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(description: "--gpx \(path): cannot be read")
        }
        let reader = GPXPoints(limit: limit)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        let ok = parser.parse()
        if reader.tooMany { throw CommandFailure(description: "--gpx \(path): more than \(limit) points") }
        if let bad = reader.badPoint {
            throw CommandFailure(description: "--gpx \(path): point \(bad + 1) has no valid lat and lon attributes")
        }
        guard ok else {
            throw CommandFailure(
                description: "--gpx \(path): not a GPX file (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "XML error"))")
        }
        return reader.track.isEmpty ? reader.route : reader.track
    }

    /// An installed trail's line (its parts one after another).
    static func trail(_ id: TrailID, bundles: [String]) throws -> [GeoPoint] {
        for bundle in bundles {
            guard let index = try? TrailIndex(bundle: bundle), let record = try? index.trail(id) else { continue }
            return record.geometry.parts.flatMap { $0 }.map { GeoPoint(lat: $0.lat, lon: $0.lon) }
        }
        throw CommandFailure(description: "--trail \(id): no installed region holds this trail")
    }
}

/// Collects `trkpt` and `rtept` coordinates, stopping past `limit`.
private final class GPXPoints: NSObject, XMLParserDelegate {
    let limit: Int
    var track = [GeoPoint]()
    var route = [GeoPoint]()
    var tooMany = false
    var badPoint: Int?

    init(limit: Int) { self.limit = limit }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let local = name.split(separator: ":").last.map(String.init) ?? name
        guard local == "trkpt" || local == "rtept" else { return }
        let index = track.count + route.count
        guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) else {
            badPoint = index
            parser.abortParsing()
            return
        }
        guard index < limit else {
            tooMany = true
            parser.abortParsing()
            return
        }
        if local == "trkpt" { track.append(GeoPoint(lat: lat, lon: lon)) } else { route.append(GeoPoint(lat: lat, lon: lon)) }
    }
}
