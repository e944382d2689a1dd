import CGDAL
import Foundation

/// One open GDAL raster. Not thread-safe (GDAL datasets are not): each rendering thread opens its
/// own, and the builder bounds how many are open at once.
public final class RasterDataset {
    public let path: String
    let handle: GDALDatasetH
    var floats: [Float] = []
    var doubles: [Double] = []
    var bytes: [UInt8] = []

    /// The open options the raster was opened with (`KEY=VALUE`, GDAL's `-oo`).
    public let openOptions: [String]

    /// Opens `path` read-only as a raster, with GDAL open options (`KEY=VALUE`, e.g. `DPI=300`
    /// for a GeoPDF); an option the file's driver does not know is an error, unless
    /// `checkingOptions` is false (a source already inspected with the same options). With
    /// `file`, that file is opened in its place (a page `path` rendered once, `RenderedPage`),
    /// and errors still name `path`.
    public init(
        path: String, openOptions: [String] = [], checkingOptions: Bool = true,
        file: String? = nil
    ) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        GDALEnvironment.resetError()
        var list: [UnsafeMutablePointer<CChar>?] = openOptions.map { strdup($0) } + [nil]
        defer { for p in list { free(p) } }
        let (opened, warnings) = GDALEnvironment.collectingWarnings(when: checkingOptions && !openOptions.isEmpty) {
            list.withUnsafeMutableBufferPointer { options in
                options.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: options.count) { o in
                    GDALOpenEx(file ?? path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY), nil, openOptions.isEmpty ? nil : o, nil)
                }
            }
        }
        guard let h = opened else {
            throw Self.openFailure(path: path, file: file ?? path)
        }
        // A value the driver does not take (DPI=abc, DPI=0 for a PDF) is only a GDAL warning,
        // and the driver's default is used: an error here.
        for option in openOptions {
            let key = String(option.prefix { $0 != "=" })
            if let warning = warnings.first(where: { $0.uppercased().contains(key.uppercased()) }) {
                GDALClose(h)
                throw .cannotOpen(path: path, reason: "open option \(option): \(warning)")
            }
        }
        // GDAL at most warns of an open option its driver does not know: check each against the
        // driver's list of open options.
        if checkingOptions, let unknown = Self.unknownOpenOption(openOptions, dataset: h) {
            let driver = GDALGetDatasetDriver(h).flatMap { GDALGetDriverShortName($0) }.map { String(cString: $0) } ?? "?"
            GDALClose(h)
            throw .cannotOpen(path: path, reason: "driver \(driver) does not support open option \(unknown)")
        }
        self.path = path
        self.openOptions = openOptions
        handle = h
    }

    deinit { GDALClose(handle) }

    /// Why GDAL opened no raster (`path` named, `file` opened): its message, or the system's when
    /// the file itself cannot be opened for want of file descriptors (GDAL then says only that no
    /// driver reads it).
    static func openFailure(path: String, file: String) -> SourceReaderError {
        let message = GDALEnvironment.lastError(or: "not a raster format GDAL reads")
        guard !file.hasPrefix("/vsi") else { return .cannotOpen(path: path, reason: message) }
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
            return .cannotOpen(path: path, reason: message)
        }
        guard errno == EMFILE || errno == ENFILE else { return .cannotOpen(path: path, reason: message) }
        return .tooManyOpenFiles(path: path, reason: String(cString: strerror(errno)))
    }

    /// The first key of `options` (`KEY=VALUE`) missing from the dataset's driver's open-option list.
    private static func unknownOpenOption(_ options: [String], dataset: GDALDatasetH) -> String? {
        guard !options.isEmpty else { return nil }
        let list =
            GDALGetDatasetDriver(dataset)
            .flatMap { GDALGetMetadataItem(UnsafeMutableRawPointer($0), "DMD_OPENOPTIONLIST", nil) }
            .map { String(cString: $0).uppercased() } ?? ""
        for option in options {
            let key = String(option.prefix { $0 != "=" }).uppercased()
            if !list.contains("NAME='\(key)'") && !list.contains("NAME=\"\(key)\"") { return key }
        }
        return nil
    }

    public var width: Int { Int(GDALGetRasterXSize(handle)) }
    public var height: Int { Int(GDALGetRasterYSize(handle)) }
}
