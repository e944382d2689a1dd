import ArgumentParser
import Foundation
import TileGeometry
import TrailSources
import Trails

/// What `trails search/show` (and `regions trails ...`) print, and the wording of the Trails module's errors.
enum TrailsOutput {
    struct HitJSON: Encodable {
        var id: String
        var name: String?
        var ref: String?
        var difficulty: String
        var allowedUses: [String]
        var forbiddenUses: [String]
        var surface: String?
        var lengthKm: Double
        var distanceKm: Double?
        var bbox: [Double]
        var start: [Double]
        var end: [Double]
        var bundles: [String]
        var ascentM: Double?
        var descentM: Double?
        var maxGradePct: Double?

        init(_ h: TrailHit) {
            let t = h.trail
            id = t.id.description
            name = t.name
            ref = t.ref
            difficulty = t.difficulty.rawValue
            allowedUses = t.allowedUses.uses.map(\.rawValue)
            forbiddenUses = t.forbiddenUses.uses.map(\.rawValue)
            surface = t.surface
            lengthKm = (t.lengthMetres / 10).rounded() / 100
            distanceKm = h.distanceMetres.map { ($0 / 10).rounded() / 100 }
            bbox = [t.bounds.west, t.bounds.south, t.bounds.east, t.bounds.north]
            start = [t.start.lon, t.start.lat]
            end = [t.end.lon, t.end.lat]
            bundles = h.bundles
            ascentM = t.elevation.map { ($0.ascentMetres * 10).rounded() / 10 }
            descentM = t.elevation.map { ($0.descentMetres * 10).rounded() / 10 }
            maxGradePct = t.elevation.map { ($0.maxGradePercent * 10).rounded() / 10 }
        }
    }

    struct PageJSON: Encodable {
        var total: Int
        var trails: [HitJSON]
        var nextCursor: String?
    }

    static func search(_ query: TrailQuery, bundles: [String], json: Bool) throws {
        let page: TrailPage
        do throws(TrailSearchError) { page = try TrailSearch.search(query, bundles: bundles) } catch {
            throw CommandFailure(description: TrailsMessages.search(error))
        }
        if json {
            try printJSON(PageJSON(total: page.total, trails: page.hits.map(HitJSON.init), nextCursor: page.nextCursor))
            return
        }
        print("\(page.total) trail\(page.total == 1 ? "" : "s")")
        for h in page.hits {
            let t = h.trail
            var line = "\(t.id)  \(t.difficulty.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  "
            line += String(format: "%7.2f km", t.lengthMetres / 1000)
            if let d = h.distanceMetres { line += String(format: "  %6.2f km away", d / 1000) }
            if let e = t.elevation {
                line += String(format: "  up %.0f m, down %.0f m, max %.1f%%", e.ascentMetres, e.descentMetres, e.maxGradePercent)
            }
            line += "  \(t.name ?? "(unnamed)")"
            if let ref = t.ref { line += " [\(ref)]" }
            if !t.allowedUses.isEmpty { line += "  uses: " + t.allowedUses.uses.map(\.rawValue).joined(separator: ",") }
            if !t.forbiddenUses.isEmpty { line += "  no: " + t.forbiddenUses.uses.map(\.rawValue).joined(separator: ",") }
            print(line)
        }
        if let next = page.nextCursor { print("more: --cursor \(next)") }
    }

    /// Finds the trail in the first bundle holding it; prints it and writes the files asked for.
    static func show(id text: String, bundles: [String], gpx: String?, geojson: String?, json: Bool) throws {
        guard let id = TrailID(text) else { throw ValidationError("\(text) is not a trail id (16 hexadecimal digits).") }
        var found: (TrailRecord, String)?
        for path in bundles {
            do {
                if let t = try TrailIndex(bundle: path).trail(id) { found = (t, path); break }
            } catch TrailStoreError.noTrails where bundles.count > 1 {
                continue
            } catch {
                throw CommandFailure(description: "\(error)")
            }
        }
        guard let (trail, path) = found else {
            throw CommandFailure(
                description: bundles.count == 1 ? "\(bundles[0]): no trail \(text)" : "no installed region holds trail \(text)")
        }
        if let gpx { try write(TrailExport.gpx(trail), to: gpx) }
        if let geojson { try write(TrailExport.geoJSON(trail), to: geojson) }
        let hit = TrailHit(trail: TrailSummary(trail), distanceMetres: nil, bundles: [path])
        if json { return try printJSON(HitJSON(hit)) }
        print("\(trail.id)  \(trail.name ?? "(unnamed)")\(trail.ref.map { " [\($0)]" } ?? "")")
        print("difficulty: \(trail.difficulty.rawValue)")
        print(String(format: "length: %.2f km", trail.lengthMetres / 1000))
        print("allowed: \(trail.allowedUses.uses.map(\.rawValue).joined(separator: ", ").nonEmpty ?? "not stated")")
        print("forbidden: \(trail.forbiddenUses.uses.map(\.rawValue).joined(separator: ", ").nonEmpty ?? "not stated")")
        if let s = trail.surface { print("surface: \(s)") }
        print(String(format: "start: %.6f,%.6f  end: %.6f,%.6f (lat,lon)", trail.start.lat, trail.start.lon, trail.end.lat, trail.end.lon))
        print("points: \(trail.geometry.pointCount) in \(trail.geometry.parts.count) line\(trail.geometry.parts.count == 1 ? "" : "s")")
        print("source: \(trail.source)")
        print("bundle: \(path)")
    }

    /// `bundle extract`: the source's trails crossing the box go with the tiles (nothing when it has none).
    @discardableResult
    static func copyTrails(from source: String, to out: String, within box: GeoBounds, quiet: Bool = false) throws -> Int {
        let count: Int
        do throws(TrailStoreError) {
            count = try TrailStoreWriter.copy(
                from: source, to: out, within: TrailBox(west: box.west, south: box.south, east: box.east, north: box.north))
        } catch {
            throw CommandFailure(description: "\(out): the tiles were cut but the trails were not: \(error)")
        }
        if count > 0, !quiet { print("\(out): \(count) trail\(count == 1 ? "" : "s")") }
        return count
    }

    /// `bundle verify`: the problems of the bundle's trails tables, if it has them.
    static func verifyProblems(_ file: String) -> [String] {
        do throws(TrailStoreError) { return try TrailIndex(bundle: file).verify().map { "trails: \($0)" } } catch {
            switch error {
            case .noTrails, .notFound, .notBundle: return [] // no trails, or the tile verifier reports the file
            default: return ["trails: \(error)"]
            }
        }
    }

    static func write(_ text: String, to path: String) throws {
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw CommandFailure(description: "\(path): cannot write it: \(error.localizedDescription)")
        }
    }

    static func printJSON(_ value: some Encodable) throws {
        try JSONOutput.print(value)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

/// The CLI's wording of the Trails module's errors: parameters named as the flags that set them.
enum TrailsMessages {
    static let flags = [
        "near": "--near", "radiusKm": "--radius-km", "bbox": "--bbox", "q": "--q", "minLengthKm": "--min-length-km",
        "maxLengthKm": "--max-length-km", "uses": "--uses", "excludeUses": "--exclude-uses", "limit": "--limit",
        "cursor": "--cursor", "sort": "--sort",
        "maxAscentM": "--max-ascent-m", "maxGradePct": "--max-grade-pct"
    ]

    static func flag(_ parameter: String) -> String { flags[parameter] ?? parameter }

    static func query(_ e: TrailQueryError) -> String {
        switch e {
        case let .invalid(parameter, reason): "\(flag(parameter)): \(reason)"
        case let .contradictory(parameters, reason): "\(parameters.map(flag).joined(separator: " and ")): \(reason)"
        case .badCursor: "--cursor: not a cursor printed by this same search"
        case .sortNeedsPoint: "--sort distance needs --near"
        }
    }

    static func search(_ e: TrailSearchError) -> String {
        switch e {
        case let .query(q): query(q)
        case let .store(s): s.description
        }
    }

    static func ingest(_ e: TrailIngestError) -> String {
        switch e {
        case let .noCRS(path, layer): "\(path): layer \(layer) declares no coordinate reference system; give one with --assume-crs"
        case let .tooManyPoints(path, layer, feature, count, limit):
            "\(path): layer \(layer), feature \(feature) has \(count) points, more than the \(limit) a trail may have; split it"
        default: e.description
        }
    }
}
