import CGDAL
import Foundation
import TileGeometry

/// A coordinate reference system, held as WKT so that it can cross threads; PROJ objects are made
/// from it where a thread needs one.
public struct SpatialReference: Sendable, Hashable, CustomStringConvertible {

    public let wkt: String
    /// The CRS's own name, e.g. `WGS 84 / UTM zone 13N`.
    public let name: String
    /// The closed-form CRS this is (`TileGeometry.CRS`: EPSG:4326 or EPSG:3857, or a CRS
    /// equivalent to one up to axis order), which the builder maps without PROJ; nil for every
    /// other CRS.
    public let kind: CRS?

    /// Parses what a user types: `EPSG:32613` (or `32613`), WKT, or a PROJ string
    /// (`+proj=utm +zone=13 +datum=WGS84`). Files and URLs are not read.
    public init(userInput text: String) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .badCRS(input: text, reason: "it is empty") }
        let input = trimmed.allSatisfy(\.isNumber) ? "EPSG:\(trimmed)" : trimmed
        guard let srs = OSRNewSpatialReference(nil) else { throw .badCRS(input: text, reason: "out of memory") }
        defer { OSRDestroySpatialReference(srs) }
        GDALEnvironment.resetError()
        // Reject what would make GDAL read a file or the network.
        if input.hasPrefix("/") || input.hasPrefix(".") || input.contains("://") {
            throw .badCRS(input: text, reason: "give an EPSG code, WKT or a PROJ string, not a file or URL")
        }
        guard OSRSetFromUserInput(srs, input) == OGRERR_NONE else {
            throw .badCRS(input: text, reason: GDALEnvironment.lastError(or: "not an EPSG code, WKT or PROJ string PROJ knows"))
        }
        try self.init(handle: srs, input: text)
    }

    /// Reads a CRS from WKT (as GDAL reports a file's projection).
    public init(wkt: String) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        guard let srs = OSRNewSpatialReference(nil) else { throw .badCRS(input: wkt, reason: "out of memory") }
        defer { OSRDestroySpatialReference(srs) }
        var copy = Array(wkt.utf8CString)
        let err = copy.withUnsafeMutableBufferPointer { buffer -> OGRErr in
            var pointer: UnsafeMutablePointer<CChar>? = buffer.baseAddress
            return OSRImportFromWkt(srs, &pointer)
        }
        guard err == OGRERR_NONE else {
            throw .badCRS(input: String(wkt.prefix(80)), reason: GDALEnvironment.lastError(or: "not WKT GDAL can read"))
        }
        try self.init(handle: srs, input: wkt)
    }

    init(handle srs: OGRSpatialReferenceH, input: String) throws(SourceReaderError) {
        var out: UnsafeMutablePointer<CChar>?
        let options = CStringArray(["FORMAT=WKT2_2019"])
        guard OSRExportToWktEx(srs, &out, options.constPointer) == OGRERR_NONE, let out else {
            throw .badCRS(input: String(input.prefix(80)), reason: GDALEnvironment.lastError(or: "cannot be written as WKT"))
        }
        wkt = String(cString: out)
        VSIFree(out)
        name = OSRGetName(srs).map { String(cString: $0) } ?? "unnamed CRS"
        kind = SpatialReference.classify(srs)
    }

    private static func classify(_ srs: OGRSpatialReferenceH) -> CRS? {
        let criteria = CStringArray([
            "IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES",
            "CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS"
        ])
        for (code, kind) in [(4326, CRS.epsg4326), (3857, .epsg3857)] {
            guard let reference = OSRNewSpatialReference(nil) else { continue }
            defer { OSRDestroySpatialReference(reference) }
            if OSRImportFromEPSG(reference, Int32(code)) == OGRERR_NONE,
                OSRIsSameEx(srs, reference, criteria.constPointer) != 0
            {
                return kind
            }
        }
        return nil
    }

    /// A new GDAL handle with longitude/easting first; the caller destroys it.
    func makeHandle() -> OGRSpatialReferenceH? {
        guard let srs = OSRNewSpatialReference(nil) else { return nil }
        var copy = Array(wkt.utf8CString)
        let err = copy.withUnsafeMutableBufferPointer { buffer -> OGRErr in
            var pointer: UnsafeMutablePointer<CChar>? = buffer.baseAddress
            return OSRImportFromWkt(srs, &pointer)
        }
        guard err == OGRERR_NONE else {
            OSRDestroySpatialReference(srs)
            return nil
        }
        OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER)
        return srs
    }

    public static let wgs84: SpatialReference = try! SpatialReference(userInput: "EPSG:4326")
    public static let webMercator: SpatialReference = try! SpatialReference(userInput: "EPSG:3857")

    public var description: String { name }

    public static func == (a: SpatialReference, b: SpatialReference) -> Bool { a.wkt == b.wkt }
    public func hash(into hasher: inout Hasher) { hasher.combine(wkt) }
}

/// A NULL-terminated `char**` for GDAL option lists, alive as long as the value.
final class CStringArray {
    let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointer = .allocate(capacity: strings.count + 1)
        for (i, s) in strings.enumerated() { pointer[i] = strdup(s) }
        pointer[strings.count] = nil
    }

    /// The same list as GDAL's `const char* const*`.
    var constPointer: UnsafePointer<UnsafePointer<CChar>?> {
        UnsafeRawPointer(pointer).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
    }

    deinit {
        for i in 0..<count { free(pointer[i]) }
        pointer.deallocate()
    }
}
