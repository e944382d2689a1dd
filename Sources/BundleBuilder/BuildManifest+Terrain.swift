import SourceReaders
import Terrain
import TileGeometry

extension BuildManifest {
    /// The fields of a layer of kind `terrain`.
    static let terrainLayerFields: Set<String> = [
        "name", "title", "kind", "sources", "minzoom", "maxzoom", "crs", "verticalUnit",
        "hillshade", "colorRelief", "opacity", "encoding", "contours", "blend"
    ]
    /// The fields of a terrain layer's `hillshade` object.
    static let hillshadeFields: Set<String> = ["azimuth", "altitude", "zFactor", "mode"]
}

extension FieldReader {
    /// A layer of kind `terrain`: its DEMs, and a `hillshade` (true, or an object of azimuth,
    /// altitude, zFactor and mode), a `colorRelief` ramp file, or an `encoding` for terrain tiles
    /// (`terrarium`, or `terrain-rgb`/`mapbox`).
    func terrainLayer(_ value: JSONValue, _ field: String, base: String) throws(BuildError) -> TerrainLayer {
        let l = try object(value, field, allowed: BuildManifest.terrainLayerFields)
        guard case let .array(paths)? = l["sources"], !paths.isEmpty else {
            throw fail("\(field).sources", "must be an array of elevation rasters (DEMs)")
        }
        var layer = TerrainLayer(sources: [])
        for (i, p) in paths.enumerated() {
            layer.sources.append(GDALFiles.resolve(try string(p, "\(field).sources[\(i)]")!, relativeTo: base))
        }
        if let name = try string(l["name"], "\(field).name") { layer.name = name }
        if let title = try string(l["title"], "\(field).title") { layer.title = title }
        if let crs = try string(l["crs"], "\(field).crs") {
            do { layer.crs = try SpatialReference(userInput: crs) } catch { throw fail("\(field).crs", "\(error)") }
        }
        layer.verticalUnit = try choice(l["verticalUnit"], "\(field).verticalUnit", VerticalUnit.self)
        switch l["hillshade"] {
        case nil, .null?, .bool(false)?: break
        case .bool(true)?: layer.hillshade = HillshadeOptions()
        case let h?:
            let o = try object(h, "\(field).hillshade", allowed: BuildManifest.hillshadeFields)
            var options = HillshadeOptions()
            if let v = try number(o["azimuth"], "\(field).hillshade.azimuth") { options.azimuth = v }
            if let v = try number(o["altitude"], "\(field).hillshade.altitude") { options.altitude = v }
            if let v = try number(o["zFactor"], "\(field).hillshade.zFactor") { options.zFactor = v }
            if let m = try choice(o["mode"], "\(field).hillshade.mode", HillshadeOptions.Mode.self) { options.mode = m }
            if let problem = options.problem {
                let key =
                    switch problem {
                    case .azimuth: "azimuth";
                    case .altitude: "altitude";
                    case .zFactor: "zFactor"
                    }
                throw fail("\(field).hillshade.\(key)", problem.description)
            }
            layer.hillshade = options
        }
        if let ramp = try string(l["colorRelief"], "\(field).colorRelief") {
            let path = GDALFiles.resolve(ramp, relativeTo: base)
            do { layer.colorRelief = try ColorRamp.load(path: path) } catch { throw fail("\(field).colorRelief", error.description) }
            layer.colorReliefPath = path
        }
        layer.contours = try contours(l["contours"], "\(field).contours")
        if let e = try string(l["encoding"], "\(field).encoding") {
            switch e {
            case "terrarium": layer.encoding = .terrarium
            case "terrain-rgb", "mapbox": layer.encoding = .mapbox
            default: throw fail("\(field).encoding", "\"\(e)\" is not a terrain encoding (terrarium, terrain-rgb)")
            }
        }
        if let opacity = try number(l["opacity"], "\(field).opacity") {
            guard opacity > 0, opacity <= 1 else { throw fail("\(field).opacity", "must be more than 0 and at most 1") }
            layer.opacity = opacity
        }
        if layer.encoding != nil && (layer.hillshade != nil || layer.colorRelief != nil || layer.contours != nil) {
            throw fail(
                "\(field).encoding",
                "terrain tiles are a bundle of their own: drop hillshade, colorRelief and contours (draw them in another manifest)")
        }
        if layer.encoding == nil && layer.hillshade == nil && layer.colorRelief == nil && layer.contours == nil {
            throw fail(field, "the terrain layer makes nothing: give hillshade, colorRelief, contours or encoding")
        }
        if let blend = try choice(l["blend"], "\(field).blend", TerrainBlend.self) {
            guard layer.hillshade != nil, layer.colorRelief == nil, layer.contours == nil, layer.encoding == nil else {
                throw fail(
                    "\(field).blend",
                    """
                    a terrain layer blended into the layers below draws a hillshade only: give hillshade, and no colorRelief, contours or \
                    encoding
                    """
                )
            }
            layer.blend = blend
        }
        let zoomRange = 0...TileID.maxZoom
        let lo = try integer(l["minzoom"], "\(field).minzoom", in: zoomRange),
            hi = try integer(l["maxzoom"], "\(field).maxzoom", in: zoomRange)
        switch (lo, hi) {
        case let (lo?, hi?):
            guard lo <= hi else { throw fail("\(field).minzoom", "\(lo) is greater than maxzoom \(hi): the range is inverted") }
            layer.zooms = lo...hi
        case (nil, nil): break
        default: throw fail("\(field).\(lo == nil ? "minzoom" : "maxzoom")", "give both minzoom and maxzoom, or neither (every zoom)")
        }
        return layer
    }
}
