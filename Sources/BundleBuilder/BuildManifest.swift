import Foundation
import Raster
import SourceReaders
import TileGeometry
import TileStore
import TrailRendering
import Trails
import TrailSources

/// A region's build described in a JSON file (a region file, e.g. `REGION.json`): its
/// name and texts, its extent, output settings and its layers, lower first. The schema is in the
/// docs/building.md ("Build manifests"); every field is checked and an error names the field.
public struct BuildManifest: Sendable {
    public var name: String
    public var description: String?
    public var attribution: String?
    public var version: String?
    /// The build's zooms; default: from the lowest to the highest zoom of the layers when every
    /// layer gives its zooms, else taken from the sources (`zoomsFromSources`), as `trailmap
    /// build` takes them.
    public var minZoom: Int
    public var maxZoom: Int
    /// The ends of the zoom range taken from the sources (`SourceZooms`): those the manifest does
    /// not give when some layer gives no zooms either.
    public var zoomsFromSources: SourceZooms = []
    public var bounds: GeoBounds?
    public var allowGaps = false
    public var allowOverlap = false
    public var tileSize: Int?
    public var effort: BuildEffort?
    public var pngLevel: Int?
    public var resampling: Resampling?
    public var format: TileFormat?
    public var quality: Int?
    public var lossless: Bool?
    public var rounding: TileRounding?
    public var layers: [BuildLayer]
    /// The layer of kind `trails`, if any: vector trails drawn over the others and stored.
    public var trails: TrailLayerOptions?
    /// The layer of kind `terrain`, if any: DEMs drawn or made into terrain tiles, in a bundle
    /// of their own (no other raster layer beside it).
    public var terrain: TerrainLayer?

    static let topFields: Set<String> = [
        "name", "description", "attribution", "version", "minzoom", "maxzoom", "bounds",
        "allowGaps", "allowOverlap", "output", "layers"
    ]
    static let outputFields: Set<String> = [
        "format", "quality", "lossless", "tileSize", "effort", "pngLevel", "resampling",
        "rounding"
    ]
    static let trailLayerFields: Set<String> = [
        "name", "title", "kind", "sources", "minzoom", "maxzoom", "mapping", "preset", "join", "style"
    ]
    static let layerFields: Set<String> = [
        "name", "title", "kind", "sources", "sourceList", "minzoom", "maxzoom", "crs",
        "nodata", "scale", "bands", "openOptions", "gcpTransform", "resampling", "opacity"
    ]

    /// Reads and checks a manifest; relative source paths are relative to its folder.
    public static func load(path: String) throws(BuildError) -> BuildManifest {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .manifest(path: path, field: nil, "cannot read the file: \(error.localizedDescription)")
        }
        let json: JSONValue
        do { json = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
            throw .manifest(path: path, field: nil, "not valid JSON (\(Self.jsonProblem(error)))")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var reader = FieldReader(path: path)
        reader.raw = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        return try reader.manifest(json, base: base)
    }

    /// The options of a build writing `output`.
    public func options(output: String) -> BuildOptions {
        var o = BuildOptions(sources: [], name: name, minZoom: minZoom, maxZoom: maxZoom, output: output)
        o.layers = layers
        o.trails = trails
        o.terrain = terrain
        o.zoomsFromSources = zoomsFromSources
        o.allowGaps = allowGaps
        o.allowOverlap = allowOverlap
        o.recordsLayers = true
        o.clipBounds = bounds
        if let description { o.description = description }
        if let attribution { o.attribution = attribution }
        if let version { o.version = version }
        if let tileSize { o.tileSize = tileSize }
        if let resampling { o.resampling = resampling }
        o.encoding = BuildOptions.encoding(
            effort: effort ?? (terrain != nil && terrain?.blend == nil ? BuildOptions.terrainEffort : BuildOptions.defaultEffort),
            level: pngLevel,
            deflater: .libdeflate, search: false)
        if let effort { o.effort = effort }
        if let format { o.format = format }
        o.quality = quality
        o.lossless = lossless ?? false
        if let rounding { o.rounding = rounding }
        return o
    }

    fileprivate static func jsonProblem(_ error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error {
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Reads a manifest's JSON value by value, naming the field in every error.
struct FieldReader {
    let path: String
    /// The whole file as `JSONSerialization` reads it (for a trails layer's style, decoded as `TrailStyle`).
    var raw: [String: Any]?

    func fail(_ field: String?, _ message: String) -> BuildError { .manifest(path: path, field: field, message) }

    func object(_ value: JSONValue?, _ field: String?, allowed: Set<String>) throws(BuildError) -> [String: JSONValue] {
        guard case let .object(dict)? = value else { throw fail(field, "must be a JSON object") }
        let prefix = field.map { "\($0)." } ?? ""
        if let unknown = dict.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail("\(prefix)\(unknown)", "unknown field (known: \(allowed.sorted().joined(separator: ", ")))")
        }
        return dict
    }

    func string(_ value: JSONValue?, _ field: String, nonEmpty: Bool = true) throws(BuildError) -> String? {
        guard let value, value != .null else { return nil }
        guard case let .string(s) = value else { throw fail(field, "must be a string") }
        if nonEmpty && s.trimmingCharacters(in: .whitespaces).isEmpty { throw fail(field, "must not be empty") }
        return s
    }

    func number(_ value: JSONValue?, _ field: String) throws(BuildError) -> Double? {
        guard let value, value != .null else { return nil }
        guard case let .number(n) = value, n.isFinite else { throw fail(field, "must be a number") }
        return n
    }

    func integer(_ value: JSONValue?, _ field: String, in range: ClosedRange<Int>) throws(BuildError) -> Int? {
        guard let d = try number(value, field) else { return nil }
        guard d == d.rounded(), range.contains(Int(d)) else {
            throw fail(field, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(d)
    }

    func bool(_ value: JSONValue?, _ field: String) throws(BuildError) -> Bool? {
        guard let value, value != .null else { return nil }
        guard case let .bool(b) = value else { throw fail(field, "must be true or false") }
        return b
    }

    func numbers(_ value: JSONValue?, _ field: String, count: ClosedRange<Int>) throws(BuildError) -> [Double]? {
        guard let value, value != .null else { return nil }
        guard case let .array(list) = value, count.contains(list.count) else {
            throw fail(
                field,
                count.lowerBound == count.upperBound
                    ? "must be an array of \(count.lowerBound) numbers"
                    : "must be an array of \(count.lowerBound) to \(count.upperBound) numbers")
        }
        var out = [Double]()
        for (i, v) in list.enumerated() { out.append(try number(v, "\(field)[\(i)]")!) }
        return out
    }

    func choice<T: RawRepresentable & CaseIterable>(_ value: JSONValue?, _ field: String, _: T.Type) throws(BuildError) -> T?
    where T.RawValue == String {
        guard let s = try string(value, field) else { return nil }
        guard let v = T(rawValue: s) else {
            throw fail(field, "\"\(s)\" is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return v
    }

    mutating func manifest(_ json: JSONValue, base: String) throws(BuildError) -> BuildManifest {
        let top = try object(json, nil, allowed: BuildManifest.topFields)
        guard let name = try string(top["name"], "name") else { throw fail("name", "is required") }
        guard case let .array(layerValues)? = top["layers"] else {
            throw fail("layers", top["layers"] == nil ? "is required: an array of layers, lower first" : "must be an array of layers")
        }
        guard !layerValues.isEmpty else { throw fail("layers", "must hold at least one layer") }
        let kinds = try layerKinds(layerValues, base: base)
        try checkTerrainPlace(kinds, values: layerValues)
        let (minZoom, maxZoom) = try zooms(top, kinds)

        var m = BuildManifest(name: name, minZoom: minZoom ?? 0, maxZoom: maxZoom ?? 0, layers: kinds.layers, trails: kinds.trails)
        m.terrain = kinds.terrain
        if minZoom == nil { m.zoomsFromSources.insert(.min) }
        if maxZoom == nil { m.zoomsFromSources.insert(.max) }
        m.description = try string(top["description"], "description", nonEmpty: false)
        m.attribution = try string(top["attribution"], "attribution", nonEmpty: false)
        m.version = try string(top["version"], "version")
        if let b = try numbers(top["bounds"], "bounds", count: 4...4) {
            let bounds = GeoBounds(west: b[0], south: b[1], east: b[2], north: b[3])
            guard bounds.isValid, bounds.west < bounds.east, bounds.south < bounds.north else {
                throw fail("bounds", "must be [west, south, east, north] in degrees, west < east, south < north")
            }
            m.bounds = bounds
        }
        m.allowGaps = try bool(top["allowGaps"], "allowGaps") ?? false
        m.allowOverlap = try bool(top["allowOverlap"], "allowOverlap") ?? false
        if let out = top["output"] { try output(out, into: &m) }
        return m
    }

    /// A manifest's layers sorted by kind: source images (in order), at most one trails layer and
    /// at most one terrain layer.
    struct LayerKinds {
        var layers = [BuildLayer]()
        var trails: TrailLayerOptions?
        var terrain: TerrainLayer?
    }

    mutating func layerKinds(_ layerValues: [JSONValue], base: String) throws(BuildError) -> LayerKinds {
        var kinds = LayerKinds()
        for (i, value) in layerValues.enumerated() {
            if case let .object(l) = value, l["kind"] == .string("terrain") {
                guard kinds.terrain == nil else { throw fail("layers[\(i)].kind", "a manifest holds one layer of kind terrain") }
                kinds.terrain = try terrainLayer(value, "layers[\(i)]", base: base)
            } else if case let .object(l) = value, l["kind"] == .string("trails") {
                guard kinds.trails == nil else { throw fail("layers[\(i)].kind", "a manifest holds one layer of kind trails") }
                kinds.trails = try trailLayer(value, "layers[\(i)]", index: i, base: base)
            } else {
                kinds.layers.append(try layer(value, "layers[\(i)]", base: base))
            }
        }
        return kinds
    }

    /// Where a terrain layer may stand: with a blend, after the image layers it shades; without
    /// one, alone (terrain tiles or hillshade in a bundle of their own), and terrain tiles without
    /// trails.
    func checkTerrainPlace(_ kinds: LayerKinds, values layerValues: [JSONValue]) throws(BuildError) {
        guard let terrain = kinds.terrain else { return }
        func kind(_ i: Int) -> JSONValue? { if case let .object(l) = layerValues[i] { l["kind"] } else { nil } }
        func isImage(_ i: Int) -> Bool {
            guard case .object = layerValues[i] else { return false }
            return kind(i) != .string("terrain") && kind(i) != .string("trails")
        }
        if terrain.blend != nil {
            guard !kinds.layers.isEmpty else {
                throw fail("layers", "the terrain layer's blend lays its hillshade on layers of source images: give at least one, below it")
            }
            if let i = layerValues.indices.first(where: { kind($0) == .string("terrain") }),
                let j = layerValues.indices.last(where: isImage), j > i
            {
                throw fail("layers[\(i)]", "a terrain layer with a blend shades the layers below it: list it after layers[\(j)]")
            }
        } else {
            if let i = layerValues.indices.first(where: isImage) {
                throw fail(
                    "layers[\(i)]",
                    """
                    a terrain layer is built in a bundle of its own: build this layer in another manifest, or give the terrain layer a \
                    blend (multiply, over) to shade it
                    """
                )
            }
            if terrain.encoding != nil, kinds.trails != nil {
                throw fail("layers", "terrain tiles hold elevations: draw the trails in another bundle")
            }
        }
    }

    /// The manifest's zooms: given at the top, else from the layers' ranges; nil for an end taken
    /// from the sources.
    func zooms(_ top: [String: JSONValue], _ kinds: LayerKinds) throws(BuildError) -> (min: Int?, max: Int?) {
        let (layers, trails, terrain) = (kinds.layers, kinds.trails, kinds.terrain)
        let zoomRange = 0...TileID.maxZoom
        let lows = layers.compactMap { $0.zooms?.lowerBound }, highs = layers.compactMap { $0.zooms?.upperBound }
        // As on the command line: unless every layer gives its zooms, the builder takes the
        // missing ends from the unranged layers' sources, together with the ranged layers' zooms.
        // A trails-only manifest: the trails' zooms, else chosen from their extent.
        let unranged =
            terrain.flatMap { $0.blend == nil ? $0.zooms == nil : nil }
            ?? (layers.contains { $0.zooms == nil } || (layers.isEmpty && trails?.zooms == nil))
        let minZoom =
            try integer(top["minzoom"], "minzoom", in: zoomRange)
            ?? (unranged ? nil : lows.min() ?? terrain?.zooms?.lowerBound ?? trails?.zooms?.lowerBound)
        let maxZoom =
            try integer(top["maxzoom"], "maxzoom", in: zoomRange)
            ?? (unranged ? nil : highs.max() ?? terrain?.zooms?.upperBound ?? trails?.zooms?.upperBound)
        if let minZoom, let maxZoom, minZoom > maxZoom { throw fail("minzoom", "\(minZoom) is greater than maxzoom \(maxZoom)") }
        return (minZoom, maxZoom)
    }

    /// The manifest's `output` object: tile format and its settings.
    func output(_ out: JSONValue, into m: inout BuildManifest) throws(BuildError) {
        let o = try object(out, "output", allowed: BuildManifest.outputFields)
        if let format = try string(o["format"], "output.format") {
            guard let f = TileFormat(metadata: format) else {
                throw fail("output.format", "\"\(format)\" is not a tile format this builder writes (png, webp, jpeg)")
            }
            m.format = f
        }
        m.quality = try integer(o["quality"], "output.quality", in: 1...100)
        m.lossless = try bool(o["lossless"], "output.lossless")
        if m.quality != nil && (m.format ?? .png) == .png {
            throw fail("output.quality", "applies to webp and jpeg tiles; png is lossless")
        }
        if m.lossless == true && m.format != .webp { throw fail("output.lossless", "applies to webp tiles only") }
        if m.lossless == true && m.quality != nil { throw fail("output.quality", "excludes lossless: true") }
        m.tileSize = try integer(o["tileSize"], "output.tileSize", in: 256...512)
        if let t = m.tileSize, t != 256 && t != 512 { throw fail("output.tileSize", "must be 256 or 512") }
        m.effort = try choice(o["effort"], "output.effort", BuildEffort.self)
        m.pngLevel = try integer(o["pngLevel"], "output.pngLevel", in: 0...12)
        m.resampling = try choice(o["resampling"], "output.resampling", Resampling.self)
        m.rounding = try choice(o["rounding"], "output.rounding", TileRounding.self)
        if m.terrain?.encoding != nil, m.format == .jpg || (m.format == .webp && m.lossless != true) {
            throw fail("output.format", "terrain tiles are lossless: png, or webp with lossless: true")
        }
    }

    /// A layer of kind `trails`: vector files, their field mapping (a JSON file) or preset, joining,
    /// the style (a `TrailStyle` object) and the zooms drawn.
    mutating func trailLayer(_ value: JSONValue, _ field: String, index: Int, base: String) throws(BuildError) -> TrailLayerOptions {
        let l = try object(value, field, allowed: BuildManifest.trailLayerFields)
        let resolve = { (p: String) in GDALFiles.resolve(p, relativeTo: base) }
        guard case let .array(paths)? = l["sources"], !paths.isEmpty else {
            throw fail("\(field).sources", "must be an array of vector files (the trails)")
        }
        var trails = TrailLayerOptions(sources: [])
        for (i, p) in paths.enumerated() { trails.sources.append(resolve(try string(p, "\(field).sources[\(i)]")!)) }
        if let name = try string(l["name"], "\(field).name") { trails.name = name }
        if let title = try string(l["title"], "\(field).title") { trails.title = title }
        trails.join = try bool(l["join"], "\(field).join") ?? false
        let preset = try string(l["preset"], "\(field).preset")
        let mapping = try string(l["mapping"], "\(field).mapping")
        if preset != nil && mapping != nil { throw fail("\(field).mapping", "give mapping or preset, not both") }
        if let preset {
            guard preset == "osm" else { throw fail("\(field).preset", "\"\(preset)\" is not a preset (osm)") }
            trails.mapping = TrailLayerOptions.osmPreset
        }
        if let mapping {
            do { trails.mapping = try TrailFieldMapping.load(path: resolve(mapping)) } catch {
                throw fail("\(field).mapping", error.description)
            }
        }
        if l["style"] != nil {
            let layers = raw?["layers"] as? [Any]
            guard index < layers?.count ?? 0, let style = (layers?[index] as? [String: Any])?["style"],
                let data = try? JSONSerialization.data(withJSONObject: style)
            else { throw fail("\(field).style", "must be a JSON object") }
            do { trails.style = try JSONDecoder().decode(TrailStyle.self, from: data) } catch {
                throw fail("\(field).style", "not a trail style: \(BuildManifest.jsonProblem(error))")
            }
        }
        let zoomRange = 0...TileID.maxZoom
        let lo = try integer(l["minzoom"], "\(field).minzoom", in: zoomRange),
            hi = try integer(l["maxzoom"], "\(field).maxzoom", in: zoomRange)
        switch (lo, hi) {
        case let (lo?, hi?):
            guard lo <= hi else { throw fail("\(field).minzoom", "\(lo) is greater than maxzoom \(hi): the range is inverted") }
            trails.zooms = lo...hi
        case (nil, nil): break
        default: throw fail("\(field).\(lo == nil ? "minzoom" : "maxzoom")", "give both minzoom and maxzoom, or neither (every zoom)")
        }
        return trails
    }

    mutating func layer(_ value: JSONValue, _ field: String, base: String) throws(BuildError) -> BuildLayer {
        let l = try object(value, field, allowed: BuildManifest.layerFields)
        guard let name = try string(l["name"], "\(field).name") else { throw fail("\(field).name", "is required") }
        let resolve = { (p: String) in GDALFiles.resolve(p, relativeTo: base) }
        var sources = [String]()
        if let list = l["sources"] {
            guard case let .array(paths) = list else { throw fail("\(field).sources", "must be an array of paths, folders or globs") }
            for (i, p) in paths.enumerated() { sources.append(resolve(try string(p, "\(field).sources[\(i)]")!)) }
        }
        if let listFile = try string(l["sourceList"], "\(field).sourceList") {
            sources += try SourceList.read(listFile: resolve(listFile))
        }
        guard !sources.isEmpty else { throw fail("\(field).sources", "the layer has no sources (give sources or sourceList)") }
        let zoomRange = 0...TileID.maxZoom
        let lo = try integer(l["minzoom"], "\(field).minzoom", in: zoomRange)
        let hi = try integer(l["maxzoom"], "\(field).maxzoom", in: zoomRange)
        var layer = BuildLayer(
            name: name, title: try string(l["title"], "\(field).title"),
            kind: try choice(l["kind"], "\(field).kind", BundleLayer.Kind.self) ?? .series,
            sources: sources)
        switch (lo, hi) {
        case let (lo?, hi?):
            guard lo <= hi else { throw fail("\(field).minzoom", "\(lo) is greater than maxzoom \(hi): the range is inverted") }
            layer.zooms = lo...hi
        case (nil, nil): break
        default: throw fail("\(field).\(lo == nil ? "minzoom" : "maxzoom")", "give both minzoom and maxzoom, or neither (every zoom)")
        }
        if let crs = try string(l["crs"], "\(field).crs") {
            do { layer.crs = try SpatialReference(userInput: crs) } catch { throw fail("\(field).crs", "\(error)") }
        }
        layer.nodata = try numbers(l["nodata"], "\(field).nodata", count: 1...4)
        if let s = try numbers(l["scale"], "\(field).scale", count: 2...2) {
            guard s[0] < s[1] else { throw fail("\(field).scale", "[\(s[0]), \(s[1])]: MIN must be less than MAX") }
            layer.scale = (s[0], s[1])
        }
        if let b = try numbers(l["bands"], "\(field).bands", count: 1...4) {
            guard let bands = ReadOptions.bandNumbers(b) else { throw fail("\(field).bands", "band numbers are whole numbers from 1") }
            layer.bands = bands
        }
        if let list = l["openOptions"] {
            guard case let .array(items) = list else { throw fail("\(field).openOptions", "must be an array of \"KEY=VALUE\" strings") }
            var options = [String]()
            for (i, item) in items.enumerated() {
                guard let o = try string(item, "\(field).openOptions[\(i)]"), ReadOptions.isOpenOption(o) else {
                    throw fail("\(field).openOptions[\(i)]", "must be KEY=VALUE, e.g. DPI=300")
                }
                options.append(o)
            }
            layer.openOptions = options
        }
        layer.gcpTransform = try choice(l["gcpTransform"], "\(field).gcpTransform", GCPTransform.self)
        layer.resampling = try choice(l["resampling"], "\(field).resampling", Resampling.self)
        if let opacity = try number(l["opacity"], "\(field).opacity") {
            guard opacity > 0, opacity <= 1 else { throw fail("\(field).opacity", "must be more than 0 and at most 1") }
            layer.opacity = opacity
        }
        return layer
    }
}

/// A JSON value as the manifest holds it (booleans and numbers kept apart).
enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }
}
