import Terrain
import TileGeometry
import TrailRendering

extension BuildManifest {
    /// The fields of a terrain layer's `contours` object.
    static let contourFields: Set<String> = ["interval", "indexEvery", "zooms", "color", "width", "indexWidth", "opacity"]
    /// The fields of one of its `zooms` ranges.
    static let contourZoomFields: Set<String> = ["minzoom", "maxzoom", "interval", "indexEvery"]
}

extension FieldReader {
    /// A terrain layer's `contours`: an interval in metres (a number), or an object of
    /// `interval`, `indexEvery`, `zooms` (ranges `{"minzoom", "maxzoom", "interval", "indexEvery"}`
    /// over the interval of every zoom), `color`, `width`, `indexWidth` and `opacity`.
    func contours(_ value: JSONValue?, _ field: String) throws(BuildError) -> ContourOptions? {
        switch value {
        case nil, .null?, .bool(false)?: return nil
        case let .number(n)?:
            let options = ContourOptions(interval: n)
            if let p = options.problem { throw fail(field, p.description) }
            return options
        default: break
        }
        let o = try object(value, field, allowed: BuildManifest.contourFields)
        let indexEvery = try integer(o["indexEvery"], "\(field).indexEvery", in: 0...1000) ?? 5
        var options = ContourOptions()
        if let interval = try number(o["interval"], "\(field).interval") {
            let levels = ContourLevels(interval: interval, indexEvery: indexEvery)
            if let p = levels.problem { throw fail("\(field).interval", p.description) }
            options.levels = levels
        }
        if let zooms = o["zooms"] {
            guard case let .array(ranges) = zooms, !ranges.isEmpty else {
                throw fail("\(field).zooms", "must be an array of {\"minzoom\", \"maxzoom\", \"interval\"} objects")
            }
            for (i, r) in ranges.enumerated() {
                let f = "\(field).zooms[\(i)]"
                let z = try object(r, f, allowed: BuildManifest.contourZoomFields)
                let zoomRange = 0...TileID.maxZoom
                guard let lo = try integer(z["minzoom"], "\(f).minzoom", in: zoomRange) else { throw fail("\(f).minzoom", "is required") }
                guard let hi = try integer(z["maxzoom"], "\(f).maxzoom", in: zoomRange) else { throw fail("\(f).maxzoom", "is required") }
                guard lo <= hi else { throw fail("\(f).minzoom", "\(lo) is greater than maxzoom \(hi): the range is inverted") }
                guard let interval = try number(z["interval"], "\(f).interval") else { throw fail("\(f).interval", "is required") }
                let levels = ContourLevels(
                    interval: interval, indexEvery: try integer(z["indexEvery"], "\(f).indexEvery", in: 0...1000) ?? indexEvery)
                if let p = levels.problem { throw fail("\(f).interval", p.description) }
                if let other = options.zoomLevels.first(where: { $0.zooms.overlaps(lo...hi) }) {
                    throw fail(
                        f,
                        "zooms \(lo)-\(hi) overlap zooms \(other.zooms.lowerBound)-\(other.zooms.upperBound): give each zoom one interval")
                }
                options.zoomLevels.append(ContourZoomRange(zooms: lo...hi, levels: levels))
            }
        }
        if options.levels == nil && options.zoomLevels.isEmpty {
            throw fail("\(field).interval", "is required (metres between lines), unless zooms gives intervals")
        }
        if let c = try string(o["color"], "\(field).color") {
            guard let color = TrailColor(hex: c) else { throw fail("\(field).color", "\"\(c)\" is not a colour: #rrggbb or #rrggbbaa") }
            options.color = color
        }
        if let w = try number(o["width"], "\(field).width") { options.width = w }
        if let w = try number(o["indexWidth"], "\(field).indexWidth") { options.indexWidth = w }
        if let a = try number(o["opacity"], "\(field).opacity") { options.opacity = a }
        if let p = options.problem {
            let key =
                switch p {
                case .width: "width"
                case .indexWidth: "indexWidth"
                case .opacity: "opacity"
                default: "interval"
                }
            throw fail("\(field).\(key)", p.description)
        }
        return options
    }
}
