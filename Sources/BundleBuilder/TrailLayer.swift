import Crypto
import Foundation
import Raster
import TileGeometry
import TrailRendering
import Trails
import TrailSources

/// The trails of a build (given as files, or a manifest layer of kind `trails`): vector lines read
/// through OGR, drawn over the tiles at the layer's zooms, and stored as records in the bundle.
public struct TrailLayerOptions: Sendable {
    /// A short identifier, recorded with the bundle's layers.
    public var name = "trails"
    public var title = "Trails"
    /// Vector files (any line layer GDAL reads).
    public var sources: [String]
    /// Source attributes → trail fields; nil: the OpenStreetMap preset for `.osm`/`.pbf`, names
    /// and refs otherwise.
    public var mapping: TrailFieldMapping?
    /// Joins the segments of one named trail that meet end to end.
    public var join = false
    /// How the lines and names are drawn.
    public var style = TrailStyle()
    /// The zooms the trails are drawn at; nil: every zoom of the build.
    public var zooms: ClosedRange<Int>?

    public init(sources: [String]) {
        self.sources = sources
    }

    /// The OpenStreetMap preset for any file holding OSM tags as fields (a GeoJSON or GeoPackage
    /// export), not only GDAL's OSM driver's `lines` layer.
    public static var osmPreset: TrailFieldMapping {
        var m = TrailFieldMapping.osm
        m.layers = nil
        m.absentFieldsAreEmpty = true
        return m
    }
}

/// A build's trails, read and ready to draw: the records to store and the renderer of the tiles.
struct PreparedTrails: Sendable {
    let options: TrailLayerOptions
    let records: [TrailRecord]
    let renderer: TrailTileRenderer
    /// The lines' extent, in degrees.
    let bounds: GeoBounds
    /// SHA-256 of the records as stored (ids, fields, geometry) and of the style: what decides
    /// the overlay's pixels, for the build's fingerprint.
    let digest: String

    /// Reads the trails of `options`.
    static func read(_ options: TrailLayerOptions) throws(BuildError) -> PreparedTrails {
        let result: TrailIngestResult
        do {
            result = try TrailIngest.read(paths: options.sources, options: TrailIngestOptions(mapping: options.mapping, join: options.join))
        } catch { throw .trails(error) }
        guard let prepared = PreparedTrails(options: options, records: result.trails) else {
            throw .trails(.noLines(path: options.sources.joined(separator: ", ")))
        }
        return prepared
    }

    /// Whether the trails are drawn at zoom `z` of a build of `range`.
    func draws(_ z: Int, build range: ClosedRange<Int>) -> Bool {
        (options.zooms ?? range).contains(z) && z >= options.style.minZoom
    }

    /// `image` with the trails of `tile` drawn over it. Pixels no trail touches keep their
    /// rounding alternates (so they encode as they would without trails); drawn ones are exact.
    func drawn(over image: RGBAImage, tile: TileID, tileSize: Int) throws(BuildError) -> RGBAImage {
        let overlay: RGBAImage
        do { overlay = try renderer.render(z: tile.z, x: tile.x, y: tile.y, tileSize: tileSize) } catch {
            throw .trailDrawing(tile: tile, error)
        }
        guard image.width == tileSize, image.height == tileSize else {
            throw .trailDrawing(tile: tile, .baseSizeMismatch(width: image.width, height: image.height, tileSize: tileSize))
        }
        var out = image
        let saved = image.roundingAlternates
        TrailTileRenderer.composite(overlay, over: &out)
        if var alternates = saved, alternates.count == out.pixels.count {
            for i in stride(from: 0, to: overlay.pixels.count, by: 4) where overlay.pixels[i + 3] != 0 {
                for k in 0..<4 { alternates[i + k] = out.pixels[i + k] }
            }
            out.roundingAlternates = alternates
        }
        return out
    }

    /// Stores the records in the finished bundle at `path`.
    func store(in path: String) throws(BuildError) {
        do { try TrailStoreWriter.write(records, toBundle: path) } catch { throw .trailStore(error) }
    }
}

extension PreparedTrails {
    /// `records` ready to draw with `options`' style (nil when there are none). The lines are
    /// drawn as the bundle stores them (to the microdegree), so that trails read back from a
    /// bundle (a shard part's, for the merge) draw the same pixels.
    init?(options: TrailLayerOptions, records unsorted: [TrailRecord]) {
        let records = unsorted.sorted { $0.id < $1.id }
        guard let first = records.first else { return nil }
        var box = first.bounds
        for r in records.dropFirst() { box = box.union(r.bounds) }
        let bounds = GeoBounds(
            west: box.west, south: max(box.south, -WebMercator.maxLatitude),
            east: box.east, north: min(box.north, WebMercator.maxLatitude))
        let lines = records.flatMap { r in
            let stored = GeometryCodec.decode(GeometryCodec.encode(r.geometry)) ?? r.geometry
            return stored.parts.map { part in
                TrailLine(
                    id: r.id.description, name: r.name, difficulty: TrailDifficultyStyleKey(rawValue: r.difficulty.rawValue) ?? .unknown,
                    coordinates: part.flatMap { [$0.lon, $0.lat] })
            }
        }
        var hash = SHA256()
        for r in records {
            hash.update(
                data: Data(
                    """
                    \(r.id)|\(r.name ?? "")|\(r.ref ?? "")|\(r.difficulty.rawValue)|\(r.allowedUses.rawValue)|\
                    \(r.forbiddenUses.rawValue)|\(r.surface ?? "")

                    """.utf8))
            hash.update(data: Data(GeometryCodec.encode(r.geometry)))
        }
        if let style = try? JSONEncoder.sorted.encode(options.style) { hash.update(data: style) }
        self.init(
            options: options, records: records, renderer: TrailTileRenderer(lines: lines, style: options.style), bounds: bounds,
            digest: hash.finalize().map { String(format: "%02x", $0) }.joined())
    }
}

extension JSONEncoder {
    /// Sorted keys, for hashing.
    static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
}
