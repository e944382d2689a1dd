import CGDAL
import Foundation
import Logging
import Trails

/// Reads trails from vector files GDAL/OGR opens (GeoJSON, GPX tracks and routes, GeoPackage,
/// Shapefile, KML, FlatGeobuf, OpenStreetMap XML/PBF...): line features, transformed to WGS 84,
/// their attributes mapped by a `TrailFieldMapping`.
public enum TrailIngest {
    static let logger = Logger(label: "trailmap.trails.ingest")

    /// Reads every file; a trail met twice (same id) is kept once. Throws `noLines` for a file with no lines.
    public static func read(
        paths: [String], options: TrailIngestOptions = TrailIngestOptions()
    ) throws(TrailIngestError) -> TrailIngestResult {
        var total = TrailIngestResult()
        var seen = Set<TrailID>()
        for path in paths {
            let r = try read(path: path, options: options)
            total.lineFeatures += r.lineFeatures
            total.filteredOut += r.filteredOut
            total.nonLineFeatures += r.nonLineFeatures
            total.duplicates += r.duplicates
            total.skipped += r.skipped
            total.joinedTrails += r.joinedTrails
            for t in r.trails {
                if seen.insert(t.id).inserted { total.trails.append(t) } else { total.duplicates += 1 }
            }
        }
        return total
    }

    /// Reads one file.
    public static func read(path: String, options: TrailIngestOptions = TrailIngestOptions()) throws(TrailIngestError) -> TrailIngestResult
    {
        let file = try VectorFile(path: path)
        let osm = file.driver == "OSM"
        let mapping = options.mapping ?? (osm || TrailIngestOptions.isOSM(path: path) ? .osm : .generic)
        var layers = [OGRLayerH]()
        let all = file.layers
        if let wanted = mapping.layers {
            for name in wanted {
                guard let layer = all.first(where: { VectorFile.name(of: $0) == name }) else {
                    throw .noSuchLayer(path: path, layer: name)
                }
                layers.append(layer)
            }
        } else {
            layers = all.filter(VectorFile.mayHoldLines)
        }
        var states = [UnsafeRawPointer: LayerReader]()
        for layer in layers {
            // An empty layer needs no CRS (GPX files carry empty routes or tracks layers); OSM
            // counts are unknown before reading (-1).
            if !osm, OGR_L_GetFeatureCount(layer, 0) == 0 { continue }
            states[UnsafeRawPointer(layer)] = try LayerReader(layer: layer, path: path, mapping: mapping, options: options)
        }
        var result = TrailIngestResult()
        var seen = Set<TrailID>()
        var trails = [TrailRecord]()
        try file.forEachFeature(of: layers) { (layer, feature) throws(TrailIngestError) in
            guard let reader = states[UnsafeRawPointer(layer)] else { return }
            let record: TrailRecord?
            do throws(TrailIngestError) {
                record = try reader.record(feature, result: &result)
            } catch {
                guard options.skipInvalidFeatures else { throw error }
                result.skipped.append(error)
                return
            }
            guard let record else { return }
            if seen.insert(record.id).inserted { trails.append(record) } else { result.duplicates += 1 }
        }
        if result.lineFeatures == 0 {
            throw result.filteredOut > 0 ? .noneMatchFilter(path: path, lines: result.filteredOut) : .noLines(path: path)
        }
        if options.join {
            let joined = TrailJoiner.join(trails, toleranceMetres: options.joinToleranceMetres)
            result.joinedTrails = joined.joinedCount
            trails = joined.trails
        }
        result.trails = trails
        logger.info(
            "trails read",
            metadata: [
                "file": "\(path)", "trails": "\(trails.count)", "lines": "\(result.lineFeatures)",
                "filtered": "\(result.filteredOut)", "skipped": "\(result.skipped.count)"
            ])
        return result
    }
}
