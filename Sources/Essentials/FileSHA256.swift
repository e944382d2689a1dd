import Crypto
import Foundation

/// Streaming SHA-256 of files: a bundle's published hash and download ETag, a download's check.
public enum FileSHA256 {
    /// Size and lower-case hex SHA-256 of the file at `path`, read 1 MiB at a time.
    public static func digest(path: String) throws(FileSystemError) -> (size: Int64, hex: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FileManager.default.fileExists(atPath: path)
                ? .failed(path: path, reason: "cannot open for reading") : .notFound(path: path)
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += Int64(chunk.count)
            }
        } catch { throw .failed(path: path, reason: "\(error)") }
        return (size, Hex.encode(hasher.finalize()))
    }

    /// Size and lower-case hex SHA-256 of bytes that `read` hands over chunk by chunk (a file
    /// read through another library's I/O, such as a member of a zip archive).
    public static func digest<E: Error>(
        reading read: ((UnsafeRawBufferPointer) -> Void) throws(E) -> Void
    ) throws(E) -> (size: Int64, hex: String) {
        var hasher = SHA256()
        var size: Int64 = 0
        try read { chunk in
            hasher.update(bufferPointer: chunk)
            size += Int64(chunk.count)
        }
        return (size, Hex.encode(hasher.finalize()))
    }

    /// Lower-case hex SHA-256 of bytes in memory.
    public static func hex(of data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }
}
