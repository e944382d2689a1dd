import Catalog
import Essentials
import Foundation
import Hummingbird
import Terrain
import Trails
import TrailMapAPI

/// `GET /elevation`, `POST /profile` and `GET /trails/{trailId}/profile`: elevations and profiles
/// from the published terrain tilesets. A terrain tileset is read under the tiles' rules: a
/// public one by anyone, a paid one by its buyers (bearer token or tile token), one no product
/// sells by nobody.
extension StoreAPI {
    func elevation(_ request: Request) async throws -> Response {
        let points = try ElevationInput.points(request.uri.queryParameters["points"].map(String.init))
        let (sampler, denied) = try await terrain(for: request)
        let heights: [Double?]
        do { heights = try sampler.elevations(at: points) } catch { throw APIError(ProfileError.source(error), field: "points") }
        if heights.allSatisfy({ $0 == nil }) {
            throw try denied.refusal(covering: points) ?? APIError(ProfileError.noElevation, field: "points")
        }
        let answer = ElevationAnswer(
            points: zip(points, heights).map {
                ElevationPoint(lat: $0.lat, lon: $0.lon, elevationM: $1.map { ($0 * 100).rounded() / 100 })
            })
        guard let json = ElevationJSON.bytes(answer) else {
            return JSONReply.make(answer, request: request, cacheControl: "private, no-cache")
        }
        let gzip = json.count >= 64 && Gzip.accepted(request.headers[.acceptEncoding]) ? Gzip.compress(json) : nil
        return JSONReply.make(json: json, gzip: gzip, request: request, cacheControl: "private, no-cache")
    }

    func profile(_ request: Request) async throws -> Response {
        let spacing = try ElevationInput.spacing(request.uri.queryParameters["spacingM"].map(String.init))
        let line = try ElevationInput.line(try await body(JSONValue.self, request))
        return try await profileAnswer(line, spacing: spacing, field: "coordinates", request: request)
    }

    /// A trail's profile: for a caller who may read its line (as its GPX) and the terrain.
    func trailProfile(_ request: Request, id raw: Substring) async throws -> Response {
        let spacing = try ElevationInput.spacing(request.uri.queryParameters["spacingM"].map(String.init))
        let (record, products, owned, _) = try await trail(request, id: raw)
        guard !owned.isEmpty else {
            let needed = products.map(\.id).joined(separator: ", ")
            throw APIError(
                request.headers[.authorization] == nil ? .unauthorized : .forbidden, code: "not_entitled",
                message: "the trail's line is for owners of a region holding it (\(needed))")
        }
        let line = record.geometry.parts.flatMap { $0 }.map { GeoPoint(lat: $0.lat, lon: $0.lon) }
        return try await profileAnswer(line, spacing: spacing, field: "trail", request: request)
    }

    private func profileAnswer(_ line: [GeoPoint], spacing: Double?, field: String, request: Request) async throws -> Response {
        let (sampler, denied) = try await terrain(for: request)
        let profile: ElevationProfile
        do {
            profile = try ProfileBuilder.profile(
                line, options: ProfileOptions(spacing: spacing, maxPoints: ProfileLine.maxPositions),
                source: sampler)
        } catch {
            if case .noElevation = error, let refusal = try denied.refusal(covering: line) { throw refusal }
            throw APIError(error, field: field)
        }
        let answer = ProfileAnswer(profile)
        guard let json = ProfileJSON.bytes(answer) else {
            return JSONReply.make(answer, request: request, cacheControl: "private, no-cache")
        }
        let gzip = Gzip.accepted(request.headers[.acceptEncoding]) ? Gzip.compress(json) : nil
        return JSONReply.make(json: json, gzip: gzip, request: request, cacheControl: "private, no-cache")
    }

    /// A sampler over the terrain tilesets the request may read, and those it may not read with
    /// the answers they gave (for when nothing readable has elevations there).
    private func terrain(for request: Request) async throws -> (TerrainSampler, DeniedTerrain) {
        var readable = [any TerrainTiles]()
        var denied = DeniedTerrain(memo: terrainShelf.memo)
        for t in registry.map({ terrainShelf.tilesets(in: $0) }) ?? [] {
            guard let product = try await access?.paidProduct(tileset: t.tileset.id) else {
                readable.append(t)
                continue
            }
            do {
                try await access?.authorize(request, productID: product)
                readable.append(t)
            } catch let e as APIError {
                denied.add(t, e)
            } catch let e as CatalogError {
                denied.add(t, APIError(e))
            }
        }
        return (TerrainSampler(readable, memo: terrainShelf.memo), denied)
    }

    /// Terrain tilesets the request may not read, and why.
    struct DeniedTerrain {
        let memo: TerrainTileMemo
        var tiles = [any TerrainTiles]()
        var answers = [APIError]()

        mutating func add(_ t: any TerrainTiles, _ answer: APIError) {
            tiles.append(t)
            answers.append(answer)
        }

        /// The answer of the first refused tileset that has elevations at one of `points`, or
        /// nil when none has (the points are outside every terrain, not just the caller's).
        func refusal(covering points: [GeoPoint]) throws -> APIError? {
            for (t, answer) in zip(tiles, answers) {
                let found = (try? TerrainSampler([t], memo: memo).elevations(at: points)) ?? []
                if found.contains(where: { $0 != nil }) { return answer }
            }
            return nil
        }
    }
}
