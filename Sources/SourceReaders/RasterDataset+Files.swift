import CGDAL
import Foundation

// The files GDAL lists for a raster and the rasters a container holds.

extension RasterDataset {
    /// GDAL's virtual file systems that read over a network.
    static let networkFileSystems = [
        "/vsicurl", "/vsis3", "/vsigs", "/vsiaz", "/vsiadls", "/vsioss", "/vsiswift", "/vsihdfs", "/vsiwebhdfs"
    ]

    /// The files GDAL lists for the dataset other than the source itself (or its container).
    func companionFiles() -> [String] {
        guard let list = GDALGetFileList(handle) else { return [] }
        defer { CSLDestroy(list) }
        let own = [path, GDALFiles.subdataset(path)?.file].compactMap { $0 }.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        var files = [String]()
        for i in 0..<Int(CSLCount(list)) {
            guard let item = list[i] else { continue }
            let file = String(cString: item)
            // Files behind a network file system (a VRT of remote COGs) are not stamped or hashed:
            // that would download them on every build.
            if Self.networkFileSystems.contains(where: { file.hasPrefix($0) }) { continue }
            let standard = file.hasPrefix("/vsi") ? file : URL(fileURLWithPath: file).standardizedFileURL.path
            if !own.contains(standard) && !files.contains(file) { files.append(file) }
        }
        return files
    }

    /// The names GDAL gives the rasters a container holds (SUBDATASET_n_NAME).
    var subdatasetNames: [String] {
        guard let list = GDALGetMetadata(handle, "SUBDATASETS") else { return [] }
        var names = [String](), i = 0
        while let p = list[i] {
            let item = String(cString: p)
            if let eq = item.firstIndex(of: "="), item[..<eq].hasSuffix("_NAME") { names.append(String(item[item.index(after: eq)...])) }
            i += 1
        }
        return names
    }

    /// Whether GDAL found a world file beside the raster.
    var hasWorldFile: Bool {
        guard let list = GDALGetFileList(handle) else { return false }
        defer { CSLDestroy(list) }
        var i = 0
        while let p = list[i] {
            let ext = URL(fileURLWithPath: String(cString: p)).pathExtension.lowercased()
            if ext == "wld" || (ext.count >= 3 && ext.count <= 4 && ext.hasSuffix("w") && ext != "raw") { return true }
            i += 1
        }
        return false
    }
}
