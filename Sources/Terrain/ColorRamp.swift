import Foundation

/// A colour ramp in `gdaldem color-relief`'s text format: one entry a line, an elevation (or
/// `N%` of the DEM's range, or `nv` for voids) then red, green, blue and optionally alpha
/// (0–255) or a colour name; fields separated by spaces, tabs, commas or colons; `#` starts a
/// comment line. Colours between two entries are interpolated linearly (gdaldem's default);
/// below the lowest entry the lowest colour is used, above the highest the highest.
public struct ColorRamp: Sendable, Hashable {
    /// One entry: where it lies and its colour.
    public struct Entry: Sendable, Hashable {
        public enum Position: Sendable, Hashable {
            case elevation(Double)
            case percent(Double)
        }
        public var position: Position
        public var rgba: [UInt8]
    }

    /// The entries as given (without the `nv` one).
    public var entries: [Entry]
    /// The colour of voids (`nv`); transparent when not given.
    public var void: [UInt8]?

    /// Parses a ramp file's text; errors name `path` and the line.
    public static func parse(_ text: String, path: String) throws(ColorRampError) -> ColorRamp {
        var entries = [Entry](), void: [UInt8]?
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { " \t,:".contains($0) }).map(String.init)
            func fail(_ why: String) -> ColorRampError { .badLine(path: path, line: i + 1, text: line, reason: why) }
            guard fields.count >= 2 else { throw fail("an entry is an elevation (or N% or nv) then a colour: R G B [A] or a name") }
            let colour: [UInt8]
            if fields.count == 2 {
                guard let named = Self.names[fields[1].lowercased()] else { throw fail("\"\(fields[1])\" is not a colour name") }
                colour = named
            } else {
                guard fields.count >= 4 else { throw fail("a colour is R G B [A], or a name") }
                guard fields.count <= 5 else { throw fail("too many fields: an entry has at most 5 (value R G B A)") }
                var c = [UInt8]()
                for f in fields.dropFirst() {
                    guard let v = Double(f), v.isFinite, v == v.rounded(), (0...255).contains(v) else {
                        throw fail("\"\(f)\" is not a colour component from 0 to 255")
                    }
                    c.append(UInt8(v))
                }
                if c.count == 3 { c.append(255) }
                colour = c
            }
            let key = fields[0]
            if key.lowercased() == "nv" {
                void = colour
            } else if key.hasSuffix("%") {
                guard let p = Double(key.dropLast()), p.isFinite, (0...100).contains(p) else {
                    throw fail("\"\(key)\" is not a percentage from 0% to 100%")
                }
                entries.append(Entry(position: .percent(p), rgba: colour))
            } else {
                guard let e = Double(key), e.isFinite else { throw fail("\"\(key)\" is not an elevation, a percentage or nv") }
                entries.append(Entry(position: .elevation(e), rgba: colour))
            }
        }
        guard !entries.isEmpty else { throw .empty(path: path) }
        return ColorRamp(entries: entries, void: void)
    }

    /// Reads and parses a ramp file.
    public static func load(path: String) throws(ColorRampError) -> ColorRamp {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badLine(path: path, line: 1, text: "", reason: "the file is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The ramp with its percentages placed on a DEM's range, sorted by elevation.
    public func resolved(min lo: Double, max hi: Double) -> ResolvedColorRamp {
        let stops = entries.map { e -> (Double, [UInt8]) in
            switch e.position {
            case let .elevation(v): (v, e.rgba)
            case let .percent(p): (lo + p / 100 * (hi - lo), e.rgba)
            }
        }.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
        return ResolvedColorRamp(elevations: stops.map(\.0), colours: stops.map(\.1), void: void ?? [0, 0, 0, 0])
    }

    /// The colour names gdaldem knows (GRASS's).
    static let names: [String: [UInt8]] = [
        "white": [255, 255, 255, 255], "black": [0, 0, 0, 255], "red": [255, 0, 0, 255], "green": [0, 255, 0, 255],
        "blue": [0, 0, 255, 255], "yellow": [255, 255, 0, 255], "magenta": [255, 0, 255, 255], "cyan": [0, 255, 255, 255],
        "aqua": [0, 192, 192, 255], "grey": [192, 192, 192, 255], "gray": [192, 192, 192, 255], "orange": [255, 128, 0, 255],
        "brown": [180, 77, 25, 255], "purple": [128, 0, 255, 255], "violet": [128, 0, 255, 255], "indigo": [0, 128, 255, 255]
    ]
}

/// A ramp on elevations in metres, ready to colour a DEM.
public struct ResolvedColorRamp: Sendable {
    /// Sorted ascending.
    public let elevations: [Double]
    public let colours: [[UInt8]]
    public let void: [UInt8]

    /// The colour of `elevation` (NaN: the void colour), as RGBA.
    public func colour(_ elevation: Float) -> (UInt8, UInt8, UInt8, UInt8) {
        func t(_ c: [UInt8]) -> (UInt8, UInt8, UInt8, UInt8) { (c[0], c[1], c[2], c[3]) }
        if elevation.isNaN { return t(void) }
        let v = Double(elevation)
        // The first entry at or above v.
        var lo = 0, hi = elevations.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if elevations[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        if lo == 0 { return t(colours[0]) }
        if lo == elevations.count { return t(colours[lo - 1]) }
        if elevations[lo] == v { return t(colours[lo]) }
        let a = colours[lo - 1], b = colours[lo]
        let r = (v - elevations[lo - 1]) / (elevations[lo] - elevations[lo - 1])
        func mix(_ k: Int) -> UInt8 { UInt8(max(0, min(255, (0.5 + Double(a[k]) + r * (Double(b[k]) - Double(a[k]))).rounded(.down)))) }
        return (mix(0), mix(1), mix(2), mix(3))
    }
}

/// Why a ramp file cannot be used; each names the file.
public enum ColorRampError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String)
    case badLine(path: String, line: Int, text: String, reason: String)
    case empty(path: String)

    public var description: String {
        switch self {
        case let .unreadable(path): "\(path): cannot read the colour ramp file"
        case let .badLine(path, line, text, reason): "\(path):\(line): \(reason) (\"\(text)\")"
        case let .empty(path): "\(path): the colour ramp holds no entry (lines of an elevation, N% or nv, then R G B [A])"
        }
    }
}
