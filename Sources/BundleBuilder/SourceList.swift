import Foundation

/// Turns `--source` arguments and `--source-list` files into the ordered list of source files.
public enum SourceList {
    /// File extensions taken from a folder given as a source.
    public static let rasterExtensions: Set<String> = [
        "tif", "tiff", "gtiff", "vrt", "png", "jpg", "jpeg", "jp2", "j2k", "pdf", "img", "webp", "ntf", "sid", "ecw",
    ]

    /// Expands each path: a folder becomes its raster files (by extension, sorted by name, not
    /// recursive); a file stays as it is (missing files are reported later, by the loader).
    public static func expand(_ paths: [String]) throws(BuildError) -> [String] {
        var out = [String]()
        for path in paths {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
                let names: [String]
                do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                    throw .sourceList(path: path, reason: "cannot list the folder: \(error.localizedDescription)")
                }
                let rasters = names.filter { rasterExtensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
                    .sorted()
                guard !rasters.isEmpty else {
                    throw .sourceList(path: path, reason: "the folder holds no raster files (\(rasterExtensions.sorted().joined(separator: ", ")))")
                }
                out += rasters.map { (path as NSString).appendingPathComponent($0) }
            } else {
                out.append(path)
            }
        }
        return out
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
        return lines.map { $0.hasPrefix("/") ? $0 : (base as NSString).appendingPathComponent($0) }
    }
}
