import Foundation

/// Problems reading a world file or JSON sidecar (the pixel grid beside an image).
public enum SidecarError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    case malformed(path: String, reason: String)
    /// Rotation terms, a negative pixel width or a positive pixel height: the builder reads such
    /// world files through GDAL.
    case notNorthUp(path: String)
    case missing(image: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "\(path): cannot read georeference: \(reason)"
        case let .malformed(path, reason): "\(path): malformed georeference: \(reason)"
        case let .notNorthUp(path):
            "\(path): the world file is not north-up (rotation terms on lines 2 and 3, a negative pixel width or a positive pixel height)"
        case let .missing(image):
            """
            \(image): no georeference found: put a world file (.pgw, .pngw or .wld) or a JSON sidecar (.json with bounds and crs) beside \
            it
            """
        }
    }
}

/// ESRI world files: six numbers, one per line (A, D, B, E, C, F), C/F being the centre of the top-left pixel.
public enum WorldFile {
    /// Parses world file text of a north-up image: no rotation terms (D, B), a positive pixel width
    /// (A) and a negative pixel height (E).
    public static func parse(_ text: String, crs: CRS, path: String = "world file") throws(SidecarError) -> PixelGrid {
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard lines.count == 6 else {
            throw .malformed(path: path, reason: "expected 6 numbers, one per line, found \(lines.count) lines")
        }
        var v = [Double]()
        for (i, line) in lines.enumerated() {
            guard let d = Double(line), d.isFinite else {
                throw .malformed(path: path, reason: "line \(i + 1) is not a number: \"\(line.prefix(40))\"")
            }
            v.append(d)
        }
        let (a, d, b, e, c, f) = (v[0], v[1], v[2], v[3], v[4], v[5])
        guard a * e - b * d != 0 else {
            throw .malformed(path: path, reason: "lines 1 to 4 (\(a), \(d), \(b), \(e)) give pixels no area")
        }
        guard d == 0, b == 0, a > 0, e < 0 else { throw .notNorthUp(path: path) }
        return PixelGrid(crs: crs, originX: c - a / 2, originY: f - e / 2, pixelWidth: a, pixelHeight: -e)
    }

    /// Writes world file text for a georeference.
    public static func format(_ g: PixelGrid) -> String {
        let lines = [g.pixelWidth, 0, 0, -g.pixelHeight, g.originX + g.pixelWidth / 2, g.originY - g.pixelHeight / 2]
        return lines.map { String(format: "%.12f", $0) }.joined(separator: "\n") + "\n"
    }
}

/// The JSON sidecar alternative: `{"crs": "EPSG:4326", "bounds": [west, south, east, north]}`
/// (bounds of the outer edges of the image, in the CRS's units).
public struct GeoSidecar: Codable, Sendable {
    public var crs: String?
    public var bounds: [Double]

    public init(crs: String?, bounds: [Double]) {
        self.crs = crs
        self.bounds = bounds
    }

    /// Parses sidecar JSON into a georeference for an image of the given size.
    public static func parse(_ data: Data, width: Int, height: Int, path: String) throws(SidecarError) -> PixelGrid {
        let sidecar: GeoSidecar
        do {
            sidecar = try JSONDecoder().decode(GeoSidecar.self, from: data)
        } catch {
            throw .malformed(path: path, reason: "expected {\"crs\": \"EPSG:4326\", \"bounds\": [west, south, east, north]}")
        }
        let crsName = sidecar.crs ?? CRS.epsg4326.rawValue
        guard let crs = CRS(parsing: crsName) else {
            throw .malformed(path: path, reason: "unsupported crs \"\(crsName)\" (use EPSG:4326 or EPSG:3857)")
        }
        let b = sidecar.bounds
        guard b.count == 4, b.allSatisfy(\.isFinite), b[0] < b[2], b[1] < b[3] else {
            throw .malformed(
                path: path, reason: "bounds must be 4 finite numbers [west, south, east, north] with west < east and south < north")
        }
        return PixelGrid(crs: crs, bounds: (b[0], b[1], b[2], b[3]), width: width, height: height)
    }
}

/// Finds and reads the sidecar (world file or JSON) that places an image: its pixel grid.
public enum SidecarLocator {
    /// Candidate world-file paths for an image path, in the order they are tried.
    public static func worldFileCandidates(for image: String) -> [String] {
        let url = URL(fileURLWithPath: image)
        let base = url.deletingPathExtension().path
        return [base + ".pgw", base + ".pngw", base + ".wld", image + ".pgw", image + ".wld"]
    }

    /// Candidate JSON sidecar paths.
    public static func sidecarCandidates(for image: String) -> [String] {
        let base = URL(fileURLWithPath: image).deletingPathExtension().path
        return [image + ".json", base + ".geo.json", base + ".json"]
    }

    /// Reads the first world file or sidecar found; world files use `worldFileCRS`.
    public static func locate(image: String, width: Int, height: Int, worldFileCRS: CRS) throws(SidecarError) -> PixelGrid {
        let fm = FileManager.default
        for candidate in worldFileCandidates(for: image) where fm.fileExists(atPath: candidate) {
            let text: String
            do { text = try String(contentsOfFile: candidate, encoding: .utf8) } catch {
                throw .unreadable(path: candidate, reason: "not readable UTF-8 text")
            }
            return try WorldFile.parse(text, crs: worldFileCRS, path: candidate)
        }
        for candidate in sidecarCandidates(for: image) where fm.fileExists(atPath: candidate) {
            guard let data = fm.contents(atPath: candidate) else {
                throw .unreadable(path: candidate, reason: "cannot read the file")
            }
            return try GeoSidecar.parse(data, width: width, height: height, path: candidate)
        }
        throw .missing(image: image)
    }
}
