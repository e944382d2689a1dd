import Crypto
import Foundation

/// Streaming SHA-256 of files (a bundle's download ETag and integrity check).
public enum FileSHA256 {
    /// Size and lower-case hex SHA-256 of the file at `path`, read 1 MiB at a time.
    public static func digest(path: String) throws(TileStoreError) -> (size: Int64, hex: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FileManager.default.fileExists(atPath: path) ? .unreadable(path: path, reason: "cannot open for reading") : .notFound(path: path)
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += Int64(chunk.count)
            }
        } catch { throw .unreadable(path: path, reason: "\(error)") }
        return (size, hex(hasher.finalize()))
    }

    /// Lower-case hex of a digest.
    public static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
