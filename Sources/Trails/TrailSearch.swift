import Crypto
import Essentials
import Foundation
import GRDB

/// Why a search failed: the query, or a bundle.
public enum TrailSearchError: Error, Equatable, Sendable, CustomStringConvertible {
    case query(TrailQueryError)
    case store(TrailStoreError)

    public var description: String {
        switch self {
        case let .query(e): e.description
        case let .store(e): e.description
        }
    }
}

/// Runs `TrailQuery`s over one or several bundles (a device's installed regions): candidates
/// from each bundle's R*Tree and FTS index and SQL filters, then exact distances to the lines,
/// then one sorted list (a trail in several bundles once, naming them all), paged by cursor.
public enum TrailSearch {
    /// Searches the bundles at `paths`; a bundle without trails is skipped, any other problem throws.
    public static func search(_ query: TrailQuery, bundles paths: [String]) throws(TrailSearchError) -> TrailPage {
        var indexes = [TrailIndex]()
        for path in paths {
            do throws(TrailStoreError) { indexes.append(try TrailIndex(bundle: path)) } catch .noTrails { continue } catch {
                throw .store(error)
            }
        }
        return try search(query, in: indexes)
    }

    /// Searches the bundles at `urls` (file URLs, e.g. the installed regions).
    public static func search(_ query: TrailQuery, bundles urls: [URL]) throws(TrailSearchError) -> TrailPage {
        try search(query, bundles: urls.map(\.path))
    }

    /// Searches open indexes.
    public static func search(_ query: TrailQuery, in indexes: [TrailIndex]) throws(TrailSearchError) -> TrailPage {
        do throws(TrailQueryError) { try query.validate() } catch { throw .query(error) }
        let offset = try TrailCursor.offset(query.cursor, fingerprint: query.fingerprint)
        var words = [String]()
        if let text = query.text {
            words = NameMatcher.words(text)
            guard !words.isEmpty else { throw .query(.invalid(parameter: "q", reason: "has no letters or digits")) }
        }
        var byID = [TrailID: TrailHit]()
        var order = [TrailID]()
        for index in indexes {
            let hits: [TrailHit]
            do throws(TrailStoreError) { hits = try matches(query, words: words, in: index) } catch { throw .store(error) }
            for hit in hits {
                if byID[hit.trail.id] == nil {
                    byID[hit.trail.id] = hit
                    order.append(hit.trail.id)
                } else {
                    byID[hit.trail.id]?.bundles += hit.bundles
                    // The same trail in a bundle built with terrain and in one without: keep the figures.
                    if byID[hit.trail.id]?.trail.elevation == nil { byID[hit.trail.id]?.trail.elevation = hit.trail.elevation }
                }
            }
        }
        var all = order.compactMap { byID[$0] }
        sort(&all, by: query.effectiveSort)
        let page = Array(all.dropFirst(offset).prefix(query.limit))
        let next = offset + page.count < all.count ? TrailCursor.make(offset: offset + page.count, fingerprint: query.fingerprint) : nil
        return TrailPage(hits: page, total: all.count, nextCursor: next)
    }

    static func sort(_ hits: inout [TrailHit], by sort: TrailQuery.Sort) {
        switch sort {
        case .distance:
            hits.sort { ($0.distanceMetres ?? 0, $0.trail.id) < ($1.distanceMetres ?? 0, $1.trail.id) }
        case .length:
            hits.sort { ($1.trail.lengthMetres, $0.trail.id) < ($0.trail.lengthMetres, $1.trail.id) }
        case .name:
            // Names compared without case or accents; unnamed trails last.
            let keys = Dictionary(
                hits.map { ($0.trail.id, $0.trail.name.map { NameMatcher.words($0).joined(separator: " ") } ?? "\u{10FFFF}") },
                uniquingKeysWith: { a, _ in a })
            hits.sort { (keys[$0.trail.id] ?? "", $0.trail.id) < (keys[$1.trail.id] ?? "", $1.trail.id) }
        }
    }

    /// Every trail of one bundle matching the query.
    static func matches(_ q: TrailQuery, words: [String], in index: TrailIndex) throws(TrailStoreError) -> [TrailHit] {
        var conditions = [String]()
        var arguments = StatementArguments()
        let boxes: [TrailBox]
        if let near = q.near, let radius = q.radiusKm {
            boxes = SearchArea.boxes(around: near, radiusKm: radius)
        } else if let bbox = q.bbox {
            boxes = SearchArea.boxes(bbox)
        } else {
            boxes = []
        }
        if !boxes.isEmpty {
            conditions.append(
                "id IN (SELECT id FROM trails_rtree WHERE "
                    + boxes.map { b in
                        _ = arguments.append(contentsOf: [b.east, b.west, b.north, b.south])
                        return "(min_lon <= ? AND max_lon >= ? AND min_lat <= ? AND max_lat >= ?)"
                    }.joined(separator: " OR ") + ")")
        }
        if !words.isEmpty {
            guard let match = NameMatcher.ftsQuery(words, vocabulary: try index.terms()) else { return [] }
            conditions.append("id IN (SELECT rowid FROM trails_fts WHERE trails_fts MATCH ?)")
            _ = arguments.append(contentsOf: [match])
        }
        if !q.difficulties.isEmpty {
            let list = q.difficulties.map(\.rawValue).sorted()
            conditions.append("difficulty IN (" + list.map { _ in "?" }.joined(separator: ", ") + ")")
            _ = arguments.append(contentsOf: StatementArguments(list))
        }
        if !q.uses.isEmpty {
            conditions.append("(allowed_uses & ?) = ?")
            _ = arguments.append(contentsOf: [q.uses.rawValue, q.uses.rawValue])
        }
        if !q.excludeUses.isEmpty {
            conditions.append("(allowed_uses & ?) = 0")
            _ = arguments.append(contentsOf: [q.excludeUses.rawValue])
        }
        if let min = q.minLengthKm {
            conditions.append("length_m >= ?")
            _ = arguments.append(contentsOf: [min * 1000])
        }
        if let max = q.maxLengthKm {
            conditions.append("length_m <= ?")
            _ = arguments.append(contentsOf: [max * 1000])
        }
        let hasElevation = try index.read { try TrailElevationStore.hasColumns($0) }
        if q.maxAscentM != nil || q.maxGradePct != nil {
            // A bundle without elevation columns has no trail that passes.
            guard hasElevation else { return [] }
            if let max = q.maxAscentM {
                conditions.append("ascent_m <= ?")
                _ = arguments.append(contentsOf: [max])
            }
            if let max = q.maxGradePct {
                conditions.append("max_grade_pct <= ?")
                _ = arguments.append(contentsOf: [max])
            }
        }
        let needsGeometry = q.near != nil || q.bbox != nil
        let sql = """
            SELECT id, name, ref, difficulty, allowed_uses, forbidden_uses, surface, length_m,
                   min_lon, min_lat, max_lon, max_lat, start_lon, start_lat, end_lon, end_lat\(needsGeometry ? ", geometry" : "")\(
                   hasElevation ? ", ascent_m, descent_m, max_grade_pct" : "")
            FROM trails\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            """
        let path = index.path
        return try index.read { db in
            var out = [TrailHit]()
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                let summary = hasElevation ? TrailSummary(row: row, elevationColumn: needsGeometry ? 17 : 16) : TrailSummary(row: row)
                var distance: Double?
                if needsGeometry {
                    guard let geometry = GeometryCodec.decode(row.bytes(16)) else {
                        throw TrailStoreError.badGeometry(path: path, id: summary.id)
                    }
                    if let near = q.near, let radius = q.radiusKm {
                        let d = Geodesic.distance(from: near, to: geometry)
                        guard d <= radius * 1000 else { continue }
                        distance = d
                    } else if !boxes.contains(where: { SearchArea.intersects(geometry, $0) }) {
                        continue
                    }
                }
                out.append(TrailHit(trail: summary, distanceMetres: distance, bundles: [path]))
            }
            return out
        }
    }
}

/// Opaque page cursors: base64url of `offset:fingerprint-hash`, good only for the same query.
enum TrailCursor {
    static func hash(_ fingerprint: String) -> String {
        SHA256.hash(data: Data(fingerprint.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    static func make(offset: Int, fingerprint: String) -> String {
        Base64URL.encode(Data("\(offset):\(hash(fingerprint))".utf8))
    }

    static func offset(_ cursor: String?, fingerprint: String) throws(TrailSearchError) -> Int {
        guard let cursor else { return 0 }
        guard let data = Base64URL.decode(cursor), let text = String(data: data, encoding: .utf8) else { throw .query(.badCursor) }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let offset = Int(parts[0]), offset >= 0, parts[1] == hash(fingerprint) else { throw .query(.badCursor) }
        return offset
    }
}
