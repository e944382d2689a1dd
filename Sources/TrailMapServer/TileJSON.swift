import Foundation
import Raster
import TileGeometry
import Terrain
import TileStore
import TrailMapAPI

/// TileJSON 3.0.0 documents and the tileset list (`GET /tiles`).
enum TileJSON {
    /// A tileset's TileJSON 3.0.0.
    struct Document: Codable, Sendable, Equatable {
        var tilejson = "3.0.0"
        var name: String
        /// One URL template, `{base}/tiles/{id}/{z}/{x}/{y}.{ext}`.
        var tiles: [String]
        var minzoom: Int
        var maxzoom: Int
        /// west, south, east, north in degrees.
        var bounds: [Double]
        /// longitude, latitude, zoom.
        var center: [Double]
        var scheme = "xyz"
        var version: String
        var format: String
        /// Left out when the bundle has none.
        var attribution: String?
        /// Left out when the bundle has none.
        var description: String?
        var tileSize: Int
        /// A terrain tileset's elevation encoding (`terrarium` or `mapbox`), as MapLibre's
        /// `raster-dem` source reads it; left out for other tilesets.
        var encoding: String?
    }

    /// One entry of `GET /tiles`: an unavailable tileset has only `id`, `tilejson`, `status` and `error`.
    struct Summary: Codable, Sendable, Equatable {
        var id: String
        /// The TileJSON's URL.
        var tilejson: String
        /// `ok` or `unavailable`.
        var status: String
        /// Why the tileset cannot be served.
        var error: String?
        var name: String?
        var minzoom: Int?
        var maxzoom: Int?
        var bounds: [Double]?
        var format: String?
        var tileSize: Int?
        /// True for a tileset not open to everyone: a paid product's (then `productId` names it), or
        /// one no product sells on its own; left out otherwise.
        var paid: Bool?
        var productId: String?
        /// A paid tileset's (or an area product's source's) highest zoom anyone may read (its
        /// preview, `PreviewZooms`); left out
        /// when it has none or is free.
        var previewMaxzoom: Int?
        /// How pages draw it (`TilesetLayer`): `base`, `region`, `overlay`, `hillshade`, `terrain`
        /// (elevation data, never drawn as a picture) or `trails`.
        var layer: TilesetLayer?
        /// The archive's own URL (`/tiles/{id}.pmtiles`, read with HTTP range requests) for a
        /// tileset served from a `.pmtiles` file; left out for `.mbtiles` bundles.
        var pmtiles: String?

        /// The entry of `t`; `paidProduct`: the product id when the tileset is paid.
        init(_ t: Tileset, base: String, paidProduct: String? = nil) {
            id = t.id
            tilejson = "\(base)/tiles/\(t.id).json"
            if let failure = t.publicFailure {
                status = "unavailable"
                error = failure
            } else {
                let m = t.metadata
                status = "ok"
                name = m.name
                minzoom = m.minZoom
                maxzoom = m.maxZoom
                bounds = [m.bounds.west, m.bounds.south, m.bounds.east, m.bounds.north]
                format = t.format.rawValue
                tileSize = t.tileSize
                layer = TilesetLayer.of(t.metadataPairs)
                if t.isArchive { pmtiles = "\(base)/tiles/\(t.id).pmtiles" }
            }
            if let paidProduct {
                paid = true
                productId = paidProduct.isEmpty || paidProduct == TileAccess.areaSourceProduct ? nil : paidProduct
            }
        }
    }

    /// `GET /tiles`.
    struct List: Codable, Sendable, Equatable {
        var tilesets: [Summary]
        /// The free tileset the pages draw under every map; left out when there is none.
        var base: String?
    }

    /// The base map among `tilesets`: the configured one when it is served and free, else the
    /// free tileset with the lowest minzoom (the widest, then the first by id, on a tie). Only a
    /// region can be the base map (never relief, terrain data or an overlay).
    static func baseTileset(in tilesets: [Summary], configured: String?) -> String? {
        let free = tilesets.filter { $0.status == "ok" && $0.paid != true && ($0.layer ?? .region) == .region }
        if let configured, free.contains(where: { $0.id == configured }) { return configured }
        func width(_ s: Summary) -> Double { s.bounds.map { ($0[2] - $0[0]) * ($0[3] - $0[1]) } ?? 0 }
        return free.min { a, b in
            (a.minzoom ?? 99, -width(a), a.id) < (b.minzoom ?? 99, -width(b), b.id)
        }?.id
    }

    /// The TileJSON of a tileset; `base` is the server's origin, e.g. `http://127.0.0.1:8080`.
    static func document(_ t: Tileset, base: String) -> Document {
        let m = t.metadata
        return Document(
            name: m.name, tiles: ["\(base)/tiles/\(t.id)/{z}/{x}/{y}.\(t.format.fileExtension)"],
            minzoom: m.minZoom, maxzoom: m.maxZoom, bounds: [m.bounds.west, m.bounds.south, m.bounds.east, m.bounds.north],
            center: [m.center.lon, m.center.lat, Double(m.center.zoom)], version: m.version.isEmpty ? "1.0.0" : m.version,
            format: t.format.rawValue, attribution: m.attribution.isEmpty ? nil : m.attribution,
            description: m.description.isEmpty ? nil : m.description, tileSize: t.tileSize,
            encoding: m.extra[TerrainEncoding.metadataKey].flatMap(TerrainEncoding.init(metadataValue:))?.metadataValue)
    }

    /// The list of `tilesets`; `paidProduct(id)`: the product id of a paid tileset, else nil.
    static func list(_ tilesets: [Tileset], base: String, paidProduct: (String) -> String?) -> List {
        List(tilesets: tilesets.map { Summary($0, base: base, paidProduct: paidProduct($0.id)) })
    }
}
