import Foundation
import Raster
import TileStore

/// The files a tiles folder serves, `NAME.mbtiles` and `NAME.pmtiles`, and what a scan reads of
/// each: its metadata rows and how its tiles are opened. Both kinds are served alike; when a
/// folder holds both `NAME.mbtiles` and `NAME.pmtiles`, the `.mbtiles` is served (the first of
/// `extensions`) and the registry logs a warning.
enum TilesetFile {
    /// Served file extensions, in order of preference on a name clash.
    static let extensions = ["mbtiles", "pmtiles"]

    /// What a scan learns of a file.
    struct Description {
        /// Metadata rows (an archive's header values merged into its JSON metadata).
        var pairs: [String: String]
        /// The zoom range read from the tiles, when the metadata lacks one (some tools omit it).
        var zooms: ClosedRange<Int>?
        /// How to open the file's tiles.
        var kind: TileSourceKind
    }

    /// The tileset id and extension of a file name, if the folder serves it.
    static func parse(_ name: String) -> (id: String, ext: String)? {
        for ext in extensions where name.hasSuffix("." + ext) {
            let id = String(name.dropLast(ext.count + 1))
            return Tileset.isValidID(id) ? (id, ext) : nil
        }
        return nil
    }

    /// Reads the metadata of the file at `path` (its kind from the extension), checking that it can be served.
    static func describe(path: String) throws -> Description {
        if path.hasSuffix(".pmtiles") {
            let reader = try PMTilesReader(path: path)
            let type = reader.header.tileType
            guard type.isServable else {
                throw TileStoreError.invalidArgument("it holds \(type): TrailMap serves PNG, JPEG and WebP tiles")
            }
            return Description(pairs: try reader.metadataPairs(), zooms: nil, kind: .pmtiles)
        }
        let reader = try BundleReader(path: path)
        let pairs = try reader.metadataPairs()
        var zooms: ClosedRange<Int>?
        if pairs["minzoom"] == nil || pairs["maxzoom"] == nil {
            let levels = try reader.zoomLevels()
            if let lo = levels.first?.zoom, let hi = levels.last?.zoom { zooms = lo...hi }
        }
        return Description(pairs: pairs, zooms: zooms, kind: .mbtiles(reader.layout))
    }
}
