import Essentials
import Foundation

/// The partial file `.ID.download` and its sidecar `.ID.download.json` (expected SHA-256 and size):
/// what survives an interrupted download so the next run can resume it.
public struct PartialDownload: Sendable {
    /// What the sidecar records.
    struct Sidecar: Codable, Equatable {
        var productId: String
        var sha256: String
        var size: Int64
        var url: String
    }

    public let productId: String
    public let directory: String

    public init(productId: String, directory: String) {
        self.productId = productId
        self.directory = directory
    }

    public var path: String { (directory as NSString).appendingPathComponent(".\(Self.safe(productId)).download") }
    public var sidecarPath: String { path + ".json" }
    /// Held (flock) by the process downloading this region, so two never append to one file;
    /// deleted by its holder when it lets go.
    public var lockPath: String { path + ".lock" }

    /// Takes the download lock, or throws `downloadInProgress`.
    func lock() throws -> FileLock {
        try FileLock(path: lockPath, wait: false, busy: .downloadInProgress(productId))
    }

    /// Bytes in the partial file (0 when absent).
    public var bytesOnDisk: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Bytes that can be resumed for this exact file (same SHA-256 and size), else 0.
    public func resumableBytes(sha256: String, size: Int64) -> Int64 {
        guard let sidecar = readSidecar(), sidecar.sha256 == sha256, sidecar.size == size else { return 0 }
        let have = bytesOnDisk
        return have <= size ? have : 0
    }

    func readSidecar() -> Sidecar? {
        guard let data = FileManager.default.contents(atPath: sidecarPath) else { return nil }
        return try? JSONDecoder().decode(Sidecar.self, from: data)
    }

    /// Starts afresh: an empty partial file and a sidecar for this file.
    func reset(sha256: String, size: Int64, url: String) throws {
        try? FileManager.default.removeItem(atPath: path) // not the lock file: the caller may hold it
        try? FileManager.default.removeItem(atPath: sidecarPath)
        try DurableFile.write(Data(), to: path, mode: 0o644)
        let sidecar = Sidecar(productId: productId, sha256: sha256, size: size, url: url)
        try DurableFile.write(try JSONEncoder().encode(sidecar), to: sidecarPath, mode: 0o600)
    }

    /// Deletes the partial file and its sidecar (the lock file is its holder's to delete: see
    /// `FileLock.release`).
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: sidecarPath)
    }

    static func safe(_ s: String) -> String {
        String(s.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
    }
}
