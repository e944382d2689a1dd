import Foundation
import SourceReaders
import TileGeometry
#if canImport(Glibc)
import Glibc
#endif

/// Turns `--source` arguments and `--source-list` files into the ordered list of source files.
public enum SourceList {
    /// File extensions taken from a folder given as a source. Not `.gpkg`: a folder of sheets
    /// often holds vector GeoPackages (trails, boundaries) beside them; give a GeoPackage raster
    /// as a file or a subdataset name.
    public static let rasterExtensions: Set<String> = [
        "tif", "tiff", "gtiff", "vrt", "png", "jpg", "jpeg", "jp2", "j2k", "pdf", "img", "webp", "ntf", "sid", "ecw",
        // Elevation and chart formats: SRTM tiles (also zipped, N39W106.hgt.zip), DTED, BSB
        // nautical charts.
        "hgt", "dt0", "dt1", "dt2", "kap"
    ]

    /// Expands each path: a folder becomes its raster files and zip archives (by extension,
    /// sorted by name, not recursive); a zip archive its raster members (any depth, sorted, read in place through
    /// GDAL's `/vsizip/`); a glob (`*`, `?`, `[...]`, when no file has that very name) the files
    /// it matches, sorted; a file, a path in one of GDAL's virtual file systems (`/vsizip/...`) or
    /// a subdataset name (`GPKG:maps.gpkg:quad`) stays as it is (missing files are reported
    /// later, by the loader).
    public static func expand(_ paths: [String]) throws(BuildError) -> [String] {
        var out = [String]()
        for path in paths {
            if GDALFiles.isVirtual(path) {
                out.append(path)
                continue
            }
            var isDir: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            if !exists, GDALFiles.subdataset(path) != nil {
                out.append(path)
                continue
            }
            if GDALFiles.archiveExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()), exists, !isDir.boolValue {
                guard let members = GDALFiles.rasterMembers(ofArchive: path, extensions: rasterExtensions) else {
                    throw .sourceList(path: path, reason: "GDAL cannot read it as a zip archive")
                }
                guard !members.isEmpty else {
                    throw .sourceList(
                        path: path, reason: "the archive holds no raster files (\(rasterExtensions.sorted().joined(separator: ", ")))")
                }
                out += members
                continue
            }
            if isGlob(path) && !exists {
                let matches = glob(path)
                guard !matches.isEmpty else { throw .sourceList(path: path, reason: "the pattern matches no files") }
                out += try expand(matches)
                continue
            }
            if exists, isDir.boolValue {
                let names: [String]
                do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                    throw .sourceList(path: path, reason: "cannot list the folder: \(error.localizedDescription)")
                }
                let taken = rasterExtensions.union(GDALFiles.archiveExtensions)
                let rasters = names.filter { taken.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }.sorted()
                guard !rasters.isEmpty else {
                    // Folders are not searched recursively; say so when the rasters may be below.
                    let folders = names.filter { name in
                        var d: ObjCBool = false
                        return !name.hasPrefix(".")
                            && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name), isDirectory: &d)
                            && d.boolValue
                    }.sorted()
                    let hint =
                        folders.first.map { first in
                            """
                            ; its \(folders.count) subfolder(s) (\(first)\(folders.count > 1 ? ", ..." : "")) are not searched: give \
                            them, or a pattern such as '\((path as NSString).appendingPathComponent("*/*.tif"))'
                            """
                        } ?? ""
                    throw .sourceList(
                        path: path, reason: "the folder holds no raster files (\(taken.sorted().joined(separator: ", ")))\(hint)")
                }
                // Archives in the folder are opened in turn; raster files stay as they are.
                out += try expand(rasters.map { (path as NSString).appendingPathComponent($0) })
            } else {
                out.append(path)
            }
        }
        return out
    }

    /// True when `path` holds glob characters.
    /// A layer's name from its first source: the file name without extension; for a glob, what
    /// its pattern says of the files (`sheets/quad-*.tif`: `quad`), else its folder's name
    /// (`sheets/*.tif`: `sheets`); `layer` when neither says anything.
    static func layerName(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        guard isGlob(path) else { return name.isEmpty ? "layer" : name }
        let literal = name.split(whereSeparator: { "*?[]{}".contains($0) }).first.map(String.init) ?? ""
        let trimmed = literal.trimmingCharacters(in: CharacterSet(charactersIn: "-_. "))
        if !trimmed.isEmpty, !name.hasPrefix("*"), !name.hasPrefix("?"), !name.hasPrefix("[") { return trimmed }
        let folder = url.deletingLastPathComponent().lastPathComponent
        return folder.isEmpty || folder == "/" || isGlob(folder) ? "layer" : folder
    }

    static func isGlob(_ path: String) -> Bool { path.contains { "*?[".contains($0) } }

    /// The files `pattern` matches, sorted (glob(3); folders matched are kept, expanded later).
    static func glob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard Glibc.glob(pattern, 0, nil, &g) == 0 else { return [] }
        return (0..<Int(g.gl_pathc)).compactMap { g.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }

    /// Reads a list file: one path a line; blank lines and lines starting with `#` are skipped;
    /// relative paths are relative to the list file's folder.
    public static func read(listFile path: String) throws(BuildError) -> [String] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .sourceList(path: path, reason: "cannot read the list: \(error.localizedDescription)")
        }
        let base = (path as NSString).deletingLastPathComponent
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !lines.isEmpty else { throw .sourceList(path: path, reason: "the list names no files") }
        return lines.map { GDALFiles.resolve($0, relativeTo: base) }
    }
}

extension SourceList {
    /// Splits `PATH@Z0-Z1` (or `PATH@Z`) into the path and the zooms it serves; a path that
    /// exists as written, or has no such suffix, serves every zoom (nil).
    public static func zoomSuffix(_ argument: String) throws(BuildError) -> (path: String, zooms: ClosedRange<Int>?) {
        guard let at = argument.lastIndex(of: "@"), !FileManager.default.fileExists(atPath: argument) else {
            return (argument, nil)
        }
        let path = String(argument[..<at]), spec = argument[argument.index(after: at)...]
        // An @ inside a subdataset name's path (GPKG:/maps/v@2/a.gpkg:t) is not a zoom range.
        if GDALFiles.isSubdatasetSyntax(argument), !spec.allSatisfy({ $0.isNumber || $0 == "-" }) { return (argument, nil) }
        let parts = spec.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard !path.isEmpty, (1...2).contains(parts.count), let lo = parts.first!, let hi = parts.last! else {
            throw .layer("\(argument): the zoom range after @ must be Z0-Z1 (e.g. \(path.isEmpty ? "sheets" : path)@8-11) or one zoom")
        }
        guard (0...TileID.maxZoom).contains(lo), (0...TileID.maxZoom).contains(hi) else { throw .zoomTooHigh(max(lo, hi)) }
        guard lo <= hi else { throw .layer("\(argument): zoom range \(lo)-\(hi) is inverted") }
        return (path, lo...hi)
    }

    /// The layers of `--source` arguments: consecutive sources with the same zoom range form one
    /// layer, named after its first file. Returns whether any argument gave a zoom range.
    public static func layers(fromArguments arguments: [String]) throws(BuildError) -> (layers: [BuildLayer], ranged: Bool) {
        var layers = [BuildLayer](), ranged = false
        for argument in arguments {
            let (path, zooms) = try zoomSuffix(argument)
            ranged = ranged || zooms != nil
            if let last = layers.last, last.zooms == zooms {
                layers[layers.count - 1].sources.append(path)
                continue
            }
            var name = layerName(path)
            let base = name
            var n = 2
            while layers.contains(where: { $0.name == name }) { name = "\(base)-\(n)"; n += 1 }
            var layer = BuildLayer(name: name, sources: [path], zooms: zooms)
            layer.namedFromSources = true
            layers.append(layer)
        }
        return (layers, ranged)
    }
}
