import Essentials
import Foundation

/// SHA-256 of downloads (Essentials' `FileSHA256`, with this module's errors).
public enum FileDigest {
    /// Lower-case hex SHA-256 of the file at `path`, read 1 MiB at a time.
    public static func sha256(path: String) throws -> String {
        do { return try FileSHA256.digest(path: path).hex } catch { throw RegionManagerError(error) }
    }

    /// Lower-case hex SHA-256 of bytes in memory.
    public static func sha256(data: Data) -> String { FileSHA256.hex(of: data) }
}
