import Foundation
import TileGeometry
import Raster
import SourceReaders
import TileStore

/// One layer of a build: a map series, or an overlay drawn over the series, with the zooms it
/// serves. Layers are drawn in order, lower first; a layer draws only where it has pixels, so an
/// overlay with transparency lies over the series and a finer series covers a coarser one only
/// inside its footprint, at the zooms both serve.
public struct BuildLayer: Sendable {
    /// Short identifier, recorded in the bundle's metadata.
    public var name: String
    /// What a buyer reads in the store, e.g. `7.5-minute maps`.
    public var title: String
    public var kind: BundleLayer.Kind = .series
    /// Files, folders (their raster files) or globs (`sheets/*.tif`), drawn in order.
    public var sources: [String]
    /// The zooms the layer serves; nil: every zoom of the build.
    public var zooms: ClosedRange<Int>?
    /// What overrides the sources' own declarations for this layer; each nil field falls back to
    /// the build's `read` options.
    public var crs: SpatialReference?
    public var nodata: [Double]?
    public var scale: (min: Double, max: Double)?
    /// How the layer's sources georeferenced by ground control points are fitted.
    public var gcpTransform: GCPTransform?
    /// The bands its sources are read from (1-based; 1 to 4 of them).
    public var bands: [Int]?
    /// GDAL open options for its sources (`KEY=VALUE`).
    public var openOptions: [String]?
    /// The layer's resampling; nil: the build's.
    public var resampling: Resampling?
    /// The name was taken from the layer's first source (not given): an update whose sources moved
    /// to another folder keeps the name of the bundle's layer it matches (`LayerMatching`).
    public var namedFromSources = false
    /// Multiplies the layer's alpha: 1 opaque as the sources are, 0.5 half see-through.
    public var opacity: Double = 1

    public init(
        name: String, title: String? = nil, kind: BundleLayer.Kind = .series, sources: [String],
        zooms: ClosedRange<Int>? = nil
    ) {
        self.name = name
        self.title = title ?? name
        self.kind = kind
        self.sources = sources
        self.zooms = zooms
    }

    /// The read options of this layer's sources: its own, then the build's.
    func readOptions(over base: ReadOptions) -> ReadOptions {
        ReadOptions(
            crs: crs ?? base.crs, nodata: nodata ?? base.nodata, scale: scale ?? base.scale,
            gcpTransform: gcpTransform ?? base.gcpTransform, bands: bands ?? base.bands,
            openOptions: openOptions ?? base.openOptions)
    }

    /// The zooms served within the build's range.
    func zooms(inBuild range: ClosedRange<Int>) -> ClosedRange<Int> { zooms ?? range }
}

/// A run of zooms served by the same layers: its top zoom is rendered from those layers'
/// sources and each lower zoom from the zoom below it (the 2×2 mean), as a one-layer build is.
struct ZoomBand: Equatable {
    var zooms: ClosedRange<Int>
    /// Indices into the build's layers, in drawing order.
    var layers: [Int]

    /// The bands of a build, lowest zooms first; zooms no layer serves are left out.
    static func bands(layers: [BuildLayer], build range: ClosedRange<Int>) -> [ZoomBand] {
        var bands = [ZoomBand]()
        for z in range {
            let here = layers.indices.filter { layers[$0].zooms(inBuild: range).contains(z) }
            if here.isEmpty { continue }
            if let last = bands.last, last.layers == here, last.zooms.upperBound == z - 1 {
                bands[bands.count - 1].zooms = last.zooms.lowerBound...z
            } else {
                bands.append(ZoomBand(zooms: z...z, layers: here))
            }
        }
        return bands
    }
}

extension BuildOptions {
    /// Checks the layers against each other and the build's zoom range: sources given, zoom
    /// ranges inside the build and in order, series not overlapping (unless `allowOverlap`),
    /// every zoom served (unless `allowGaps`), opacity in (0, 1]. The zoom checks wait until
    /// the zooms taken from the sources are known.
    func validateLayers() throws(BuildError) {
        guard !layers.isEmpty else { throw .noSources }
        let zoomsKnown = zoomsFromSources.isEmpty
        let range = zoomsKnown ? minZoom...maxZoom : 0...TileID.maxZoom
        for (i, layer) in layers.enumerated() {
            let what = "layer \(i + 1) (\(layer.name))"
            guard !layer.name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .layer("layer \(i + 1): the name must not be empty")
            }
            guard !layer.sources.isEmpty else { throw .layer("\(what): no sources") }
            if let z = layer.zooms {
                guard range.contains(z.lowerBound), range.contains(z.upperBound) else {
                    throw .layer("\(what): zooms \(z.lowerBound)-\(z.upperBound) lie outside the build's \(minZoom)-\(maxZoom)")
                }
            }
            guard layer.opacity > 0, layer.opacity <= 1 else {
                throw .layer("\(what): opacity \(layer.opacity) must be more than 0 and at most 1")
            }
            if let scale = layer.scale, !(scale.min < scale.max) {
                throw .layer("\(what): scale \(scale.min),\(scale.max): MIN must be less than MAX")
            }
        }
        let names = layers.map(\.name)
        if let dup = names.first(where: { n in names.filter { $0 == n }.count > 1 }) {
            throw .layer("two layers are named \"\(dup)\": layer names must differ")
        }
        if !zoomsKnown, !allowOverlap {
            // A series without zooms serves every zoom of the build, so it overlaps any other
            // series whatever zooms the sources give: said before they are read.
            let series = layers.filter { $0.kind == .series }
            if let whole = series.first(where: { $0.zooms == nil }), let other = series.first(where: { $0.name != whole.name }) {
                throw .layer(
                    """
                    series \"\(whole.name)\" (every zoom of the build) and \"\(other.name)\" serve the same zooms; give them zooms that \
                    meet without overlapping, or allow overlap (the later one drawn over the earlier inside its footprint)
                    """
                )
            }
        }
        guard zoomsKnown else { return }
        if !allowOverlap {
            let series = layers.indices.filter { layers[$0].kind == .series }
            for (a, i) in series.enumerated() {
                for j in series.dropFirst(a + 1) {
                    let zi = layers[i].zooms(inBuild: range), zj = layers[j].zooms(inBuild: range)
                    if zi.overlaps(zj) {
                        throw .layer(
                            """
                            series \"\(layers[i].name)\" (zooms \(zi.lowerBound)-\(zi.upperBound)) and \"\(layers[j].name)\" (zooms \
                            \(zj.lowerBound)-\(zj.upperBound)) serve the same zooms; make them meet without overlapping, or allow overlap \
                            (the later one drawn over the earlier inside its footprint)
                            """
                        )
                    }
                }
            }
        }
        if !allowGaps {
            let served = Set(layers.flatMap { Array($0.zooms(inBuild: range)) })
            let missing = range.filter { !served.contains($0) }
            if !missing.isEmpty {
                throw .layer(
                    """
                    no layer serves zoom\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", ")) of the \
                    build's \(minZoom)-\(maxZoom); extend a layer's zooms, or allow gaps
                    """
                )
            }
        }
    }
}
