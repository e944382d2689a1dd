/// An sRGB colour with straight alpha; in a manifest, `"#rrggbb"` or `"#rrggbbaa"`.
public struct TrailColor: Sendable, Equatable, Codable, CustomStringConvertible {
    /// sRGB channels, 0...255.
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// Opacity, 0 (none) ...255 (opaque), not premultiplied into the channels.
    public var alpha: UInt8

    /// A colour from its channels (opaque unless told).
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// A colour from `#rrggbb` or `#rrggbbaa` (the `#` optional); nil for anything else.
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        guard s.count == 6 || s.count == 8, s.allSatisfy(\.isHexDigit), let v = UInt32(s, radix: 16) else { return nil }
        let full = s.count == 6 ? v << 8 | 0xff : v
        self.init(red: UInt8(full >> 24), green: UInt8(full >> 16 & 0xff), blue: UInt8(full >> 8 & 0xff), alpha: UInt8(full & 0xff))
    }

    /// `#rrggbbaa`.
    public var description: String {
        "#"
            + [red, green, blue, alpha].map { b in
                let h = String(b, radix: 16)
                return h.count == 1 ? "0" + h : h
            }.joined()
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let c = TrailColor(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "a colour is #rrggbb or #rrggbbaa, not \"\(text)\""))
        }
        self = c
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    var components: (r: Double, g: Double, b: Double, a: Double) {
        (Double(red) / 255, Double(green) / 255, Double(blue) / 255, Double(alpha) / 255)
    }
}

/// A value that changes with zoom: linear between stops, held beyond the first and last.
public struct ZoomStops: Sendable, Equatable, Codable {
    /// One stop: at `zoom`, `value` (pixels).
    public struct Stop: Sendable, Equatable, Codable {
        /// The zoom level (fractions allowed).
        public var zoom: Double
        /// The value there, in pixels.
        public var value: Double
        /// A stop.
        public init(zoom: Double, value: Double) {
            self.zoom = zoom
            self.value = value
        }
    }

    /// The stops, in increasing zoom.
    public var stops: [Stop]

    /// Stops in any order (they are sorted by zoom); none gives 0 at every zoom.
    public init(_ stops: [Stop]) { self.stops = stops.sorted { $0.zoom < $1.zoom } }

    /// The same value at every zoom.
    public init(constant: Double) { self.init([Stop(zoom: 0, value: constant)]) }

    /// The value at zoom `z`.
    public func value(at z: Double) -> Double {
        guard let first = stops.first, let last = stops.last else { return 0 }
        if z <= first.zoom { return first.value }
        if z >= last.zoom { return last.value }
        for (a, b) in zip(stops, stops.dropFirst()) where z <= b.zoom {
            let t = b.zoom > a.zoom ? (z - a.zoom) / (b.zoom - a.zoom) : 1
            return a.value + (b.value - a.value) * t
        }
        return last.value
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([Stop].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(stops)
    }
}

/// How trails are drawn; lives in a manifest (JSON), so every field has a default.
public struct TrailStyle: Sendable, Equatable, Codable {
    /// The line colour per difficulty.
    public var colors: [TrailDifficultyStyleKey: TrailColor]
    /// The line's width in pixels by zoom (the casing is drawn around it).
    public var lineWidth: ZoomStops
    /// The casing's colour: a border under the line so it reads over imagery and relief.
    public var casingColor: TrailColor
    /// The casing's width on each side of the line, in pixels, by zoom (0 for none).
    public var casingWidth: ZoomStops
    /// The lowest zoom that draws trails at all.
    public var minZoom: Int
    /// The lowest zoom that draws names along the lines.
    public var labelMinZoom: Int
    /// A Pango font description without size, e.g. `"DejaVu Sans Bold"`.
    public var font: String
    /// The label text height in pixels by zoom.
    public var fontSize: ZoomStops
    /// The label text colour.
    public var labelColor: TrailColor
    /// The halo around label text, so it reads over lines and imagery.
    public var haloColor: TrailColor
    /// The halo's width in pixels (0 for none).
    public var haloWidth: Double
    /// The least distance, in pixels, between two labels' boxes.
    public var labelPadding: Double
    /// The distance, in pixels along a line, between candidate places for its label.
    public var labelSpacing: Double

    /// A style; the defaults draw 1.5-4 px lines with a white casing and names from zoom 14.
    public init(
        colors: [TrailDifficultyStyleKey: TrailColor] = TrailStyle.defaultColors,
        lineWidth: ZoomStops = ZoomStops([.init(zoom: 10, value: 1.5), .init(zoom: 14, value: 2.5), .init(zoom: 17, value: 4)]),
        casingColor: TrailColor = TrailColor(red: 255, green: 255, blue: 255, alpha: 255),
        casingWidth: ZoomStops = ZoomStops([.init(zoom: 10, value: 0.75), .init(zoom: 16, value: 1.5)]),
        minZoom: Int = 0,
        labelMinZoom: Int = 14,
        font: String = "DejaVu Sans Bold",
        fontSize: ZoomStops = ZoomStops([.init(zoom: 14, value: 11), .init(zoom: 17, value: 13)]),
        labelColor: TrailColor = TrailColor(red: 40, green: 40, blue: 40),
        haloColor: TrailColor = TrailColor(red: 255, green: 255, blue: 255, alpha: 230),
        haloWidth: Double = 1.5,
        labelPadding: Double = 4,
        labelSpacing: Double = 160
    ) {
        self.colors = colors
        self.lineWidth = lineWidth
        self.casingColor = casingColor
        self.casingWidth = casingWidth
        self.minZoom = minZoom
        self.labelMinZoom = labelMinZoom
        self.font = font
        self.fontSize = fontSize
        self.labelColor = labelColor
        self.haloColor = haloColor
        self.haloWidth = haloWidth
        self.labelPadding = labelPadding
        self.labelSpacing = labelSpacing
    }

    /// Green, blue, red, black and grey, as trail signs colour them.
    public static let defaultColors: [TrailDifficultyStyleKey: TrailColor] = [
        .easy: TrailColor(red: 46, green: 160, blue: 67),
        .moderate: TrailColor(red: 31, green: 100, blue: 214),
        .hard: TrailColor(red: 214, green: 40, blue: 40),
        .expert: TrailColor(red: 20, green: 20, blue: 20),
        .unknown: TrailColor(red: 120, green: 110, blue: 100)
    ]

    /// The colour of a difficulty (the unknown one's, or grey, where the style has none).
    public func color(for d: TrailDifficultyStyleKey) -> TrailColor {
        colors[d] ?? colors[.unknown] ?? TrailColor(red: 120, green: 110, blue: 100)
    }

    private enum CodingKeys: String, CodingKey {
        case colors, lineWidth, casingColor, casingWidth, minZoom, labelMinZoom, font, fontSize
        case labelColor, haloColor, haloWidth, labelPadding, labelSpacing
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TrailStyle()
        var colors = d.colors
        if let given = try c.decodeIfPresent([String: TrailColor].self, forKey: .colors) {
            for (key, color) in given {
                guard let k = TrailDifficultyStyleKey(rawValue: key) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .colors, in: c,
                        debugDescription: "unknown difficulty \"\(key)\"")
                }
                colors[k] = color
            }
        }
        self.init(
            colors: colors,
            lineWidth: try c.decodeIfPresent(ZoomStops.self, forKey: .lineWidth) ?? d.lineWidth,
            casingColor: try c.decodeIfPresent(TrailColor.self, forKey: .casingColor) ?? d.casingColor,
            casingWidth: try c.decodeIfPresent(ZoomStops.self, forKey: .casingWidth) ?? d.casingWidth,
            minZoom: try c.decodeIfPresent(Int.self, forKey: .minZoom) ?? d.minZoom,
            labelMinZoom: try c.decodeIfPresent(Int.self, forKey: .labelMinZoom) ?? d.labelMinZoom,
            font: try c.decodeIfPresent(String.self, forKey: .font) ?? d.font,
            fontSize: try c.decodeIfPresent(ZoomStops.self, forKey: .fontSize) ?? d.fontSize,
            labelColor: try c.decodeIfPresent(TrailColor.self, forKey: .labelColor) ?? d.labelColor,
            haloColor: try c.decodeIfPresent(TrailColor.self, forKey: .haloColor) ?? d.haloColor,
            haloWidth: try c.decodeIfPresent(Double.self, forKey: .haloWidth) ?? d.haloWidth,
            labelPadding: try c.decodeIfPresent(Double.self, forKey: .labelPadding) ?? d.labelPadding,
            labelSpacing: try c.decodeIfPresent(Double.self, forKey: .labelSpacing) ?? d.labelSpacing)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Dictionary(uniqueKeysWithValues: colors.map { ($0.key.rawValue, $0.value) }), forKey: .colors)
        try c.encode(lineWidth, forKey: .lineWidth)
        try c.encode(casingColor, forKey: .casingColor)
        try c.encode(casingWidth, forKey: .casingWidth)
        try c.encode(minZoom, forKey: .minZoom)
        try c.encode(labelMinZoom, forKey: .labelMinZoom)
        try c.encode(font, forKey: .font)
        try c.encode(fontSize, forKey: .fontSize)
        try c.encode(labelColor, forKey: .labelColor)
        try c.encode(haloColor, forKey: .haloColor)
        try c.encode(haloWidth, forKey: .haloWidth)
        try c.encode(labelPadding, forKey: .labelPadding)
        try c.encode(labelSpacing, forKey: .labelSpacing)
    }
}
