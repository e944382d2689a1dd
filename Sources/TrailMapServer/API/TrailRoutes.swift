import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Trails
import TrailMapAPI

/// `GET /trails` (search), `GET /trails/{trailId}` and `GET /trails/{trailId}/gpx`: the trails of
/// the published regions. Searching is open to everyone (it sells regions); a trail's line, as
/// GeoJSON or GPX, only to a caller entitled to a region holding it (free regions: everyone).
extension StoreAPI {
    func trailSearch(_ request: Request) async throws -> Response {
        let account = try await optionalAccount(request)
        let parameters = request.uri.queryParameters
        let (query, place) = try trailQuery { parameters[Substring($0)].map(String.init) }
        let products = try await catalog.products()
        let shelf = trailShelf.indexes(of: products)
        let page: TrailPage
        do throws(TrailSearchError) { page = try TrailSearch.search(query, in: shelf.map(\.index)) } catch { throw APIError(error) }
        let owners = try await ownership(of: shelf.map(\.product), account: account)
        let byPath = Dictionary(shelf.map { ($0.index.path, $0.product) }, uniquingKeysWith: { a, _ in a })
        let results = page.hits.map { hit in
            Self.result(
                hit.trail, distanceMetres: hit.distanceMetres,
                products: hit.bundles.compactMap { byPath[$0] }.map {
                    TrailProduct(productId: $0.id, title: $0.title, owned: owners.contains($0.id))
                })
        }
        return JSONReply.make(
            TrailSearchResult(trails: results, total: page.total, nextCursor: page.nextCursor, place: place),
            request: request, cacheControl: account == nil ? "public, max-age=60" : "private, no-cache")
    }

    func trailDetail(_ request: Request, id raw: Substring) async throws -> Response {
        let (record, products, owned, elevation) = try await trail(request, id: raw, withElevation: true)
        var summary = TrailSummary(record)
        summary.elevation = elevation
        let trail = Self.result(
            summary, distanceMetres: nil,
            products: products.map { TrailProduct(productId: $0.id, title: $0.title, owned: owned.contains($0.id)) })
        var geometry: JSONValue?
        if !owned.isEmpty {
            geometry = try? JSONDecoder().decode(JSONValue.self, from: Data(TrailExport.geoJSON(record).utf8))
        }
        return JSONReply.make(
            TrailDetail(trail: trail, geometry: geometry, gpxURL: owned.isEmpty ? nil : "/api/v1/trails/\(record.id)/gpx"),
            request: request, cacheControl: "private, no-cache")
    }

    func trailGPX(_ request: Request, id raw: Substring) async throws -> Response {
        let (record, products, owned, _) = try await trail(request, id: raw)
        guard !owned.isEmpty else {
            let needed = products.map(\.id).joined(separator: ", ")
            throw APIError(
                request.headers[.authorization] == nil ? .unauthorized : .forbidden, code: "not_entitled",
                message: "the trail's line is for owners of a region holding it (\(needed))")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/gpx+xml; charset=utf-8", .cacheControl: "private, no-cache",
                .contentDisposition: "attachment; filename=\"trail-\(record.id).gpx\""
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: TrailExport.gpx(record))))
    }

    /// A trail by id, the region products holding it, those of them the caller may read, and
    /// (`withElevation`) the figures of the first holder built with terrain, read in the same pass.
    func trail(
        _ request: Request, id raw: Substring,
        withElevation: Bool = false
    ) async throws -> (TrailRecord, [Product], Set<String>, TrailElevation?) {
        guard let id = TrailID(String(raw)) else {
            throw APIError.badRequest("invalid trail id: 16 hexadecimal digits")
        }
        let account = try await optionalAccount(request)
        var record: TrailRecord?
        var holders = [Product]()
        var elevation: TrailElevation?
        for (product, index) in trailShelf.indexes(of: try await catalog.products()) {
            let found: TrailRecord?
            do { found = try index.trail(id) } catch { throw APIError.unavailable("the trails of \(product.id) cannot be read") }
            if let found {
                record = record ?? found
                holders.append(product)
                if withElevation, elevation == nil { elevation = try? index.elevation(id) }
            }
        }
        guard let record else { throw APIError.notFound("unknown_trail", "no published region holds trail \(id)") }
        return (record, holders, try await ownership(of: holders, account: account), elevation)
    }

    /// The ids of `products` that are free or that `account` is entitled to.
    func ownership(of products: [Product], account: Account?) async throws -> Set<String> {
        var owned = Set<String>()
        for p in products where !owned.contains(p.id) {
            if p.free {
                owned.insert(p.id)
            } else if let account, try await catalog.isEntitled(accountID: account.id, productID: p.id) {
                owned.insert(p.id)
            }
        }
        return owned
    }

    static func result(_ t: TrailSummary, distanceMetres: Double?, products: [TrailProduct]) -> TrailResult {
        func round(_ v: Double, _ places: Double = 1e6) -> Double { (v * places).rounded() / places }
        return TrailResult(
            id: t.id.description, name: t.name, ref: t.ref, difficulty: t.difficulty.rawValue,
            allowedUses: t.allowedUses.uses.map(\.rawValue), forbiddenUses: t.forbiddenUses.uses.map(\.rawValue),
            surface: t.surface, lengthKm: round(t.lengthMetres / 1000, 1000),
            bbox: [t.bounds.west, t.bounds.south, t.bounds.east, t.bounds.north].map { round($0) },
            start: [round(t.start.lon), round(t.start.lat)], end: [round(t.end.lon), round(t.end.lat)],
            distanceKm: distanceMetres.map { round($0 / 1000, 1000) }, products: products,
            ascentM: t.elevation.map { round($0.ascentMetres, 10) }, descentM: t.elevation.map { round($0.descentMetres, 10) },
            maxGradePct: t.elevation.map { round($0.maxGradePercent, 10) })
    }
}

extension APIError {
    /// The HTTP answer to a trail search error: the parameter named, 422 (values the document's
    /// schema allows that contradict each other or are out of range).
    init(_ e: TrailSearchError) {
        switch e {
        case let .query(q): self.init(.unprocessableContent, code: "invalid_trail_query", message: q.description)
        case .store: self.init(.serviceUnavailable, code: "trails_unavailable", message: "the trails of a region cannot be read")
        }
    }
}

extension StoreAPI {
    /// The trails of a region product for its detail, or nil when its bundle holds none.
    func trailsSummary(_ p: Product, account: Account?) async throws -> TrailsSummary? {
        guard let index = trailShelf.indexes(of: [p]).first?.index, let s = try? index.summary(longest: 5), s.count > 0 else { return nil }
        let owned = try await ownership(of: [p], account: account).contains(p.id)
        let product = TrailProduct(productId: p.id, title: p.title, owned: owned)
        return TrailsSummary(
            count: s.count, byDifficulty: Dictionary(uniqueKeysWithValues: s.byDifficulty.map { ($0.key.rawValue, $0.value) }),
            totalLengthKm: (s.totalLengthMetres / 10).rounded() / 100,
            longest: s.longest.map { Self.result($0, distanceMetres: nil, products: [product]) })
    }
}
