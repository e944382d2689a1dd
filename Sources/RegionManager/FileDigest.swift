import Crypto
import Foundation

/// Streaming SHA-256 of a file.
public enum FileDigest {
    /// Lower-case hex SHA-256 of the file at `path`, read 1 MiB at a time.
    public static func sha256(path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RegionManagerError.fileSystem(path: path, reason: "cannot open for reading")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { break }
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    /// Lower-case hex SHA-256 of bytes in memory.
    public static func sha256(data: Data) -> String { hex(SHA256.hash(data: data)) }

    private static func hex(_ digest: SHA256.Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }
}
