import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resumable bundle downloads as a series of ranged requests (`Range: bytes=N-M` with
/// `If-Range: "SHA256"`), each chunk appended to the partial file and fsynced before the next,
/// so an interruption of any kind (network, Ctrl-C, kill -9) loses at most one chunk.
public struct Downloader: Sendable {
    /// What to fetch and where it goes.
    public struct Job: Sendable {
        public var url: URL
        public var token: String?
        public var productId: String
        public var sha256: String
        public var size: Int64
        public var partial: PartialDownload

        public init(url: URL, token: String?, productId: String, sha256: String, size: Int64, partial: PartialDownload) {
            self.url = url
            self.token = token
            self.productId = productId
            self.sha256 = sha256
            self.size = size
            self.partial = partial
        }
    }

    public let http: HTTPClient
    /// Bytes per ranged request.
    public let chunkSize: Int

    public init(http: HTTPClient = HTTPClient(), chunkSize: Int = 1 << 20) {
        self.http = http
        self.chunkSize = max(1, chunkSize)
    }

    /// Downloads (or resumes) `job` into its partial file; returns when the file has `job.size` bytes.
    /// The caller verifies the SHA-256 and installs.
    public func download(_ job: Job, progress: @Sendable (DownloadProgress) -> Void = { _ in }) async throws {
        var offset = job.partial.resumableBytes(sha256: job.sha256, size: job.size)
        if offset == 0 {
            try job.partial.reset(sha256: job.sha256, size: job.size, url: job.url.absoluteString)
        }
        let fd = open(job.partial.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw AtomicFile.failure(job.partial.path) }
        defer { close(fd) }
        let resumedFrom = offset
        let started = ContinuousClock.now
        var restarts = 0
        func report() {
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            let rate = elapsed > 0 ? Double(offset - resumedFrom) / elapsed : 0
            progress(DownloadProgress(received: offset, total: job.size, resumedFrom: resumedFrom, bytesPerSecond: rate))
        }
        report()
        while offset < job.size {
            try Task.checkCancellation()
            let end = min(offset + Int64(chunkSize), job.size) - 1
            var request = URLRequest(url: job.url)
            request.httpMethod = "GET"
            request.setValue("bytes=\(offset)-\(end)", forHTTPHeaderField: "Range")
            request.setValue("\"\(job.sha256)\"", forHTTPHeaderField: "If-Range")
            if let token = job.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let reply = try await http.send(request, idempotent: true)
            switch reply.status {
            case 206:
                guard let range = Self.contentRange(reply.header("content-range")), range.start == offset,
                      !reply.body.isEmpty, Int64(reply.body.count) == range.end - range.start + 1,
                      offset + Int64(reply.body.count) <= job.size
                else {
                    throw RegionManagerError.invalidResponse("bad partial answer (Content-Range \(reply.header("content-range") ?? "none"))")
                }
                try append(reply.body, fd: fd, path: job.partial.path)
                offset += Int64(reply.body.count)
            case 200:
                // The server sent the whole entity: a different version (If-Range failed) or no range support.
                guard Int64(reply.body.count) == job.size else {
                    throw RegionManagerError.invalidResponse(
                        "the server's file has \(reply.body.count) bytes, the catalog says \(job.size); run `trailmap regions install` again")
                }
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw AtomicFile.failure(job.partial.path) }
                try append(reply.body, fd: fd, path: job.partial.path)
                offset = job.size
            case 416:
                guard restarts == 0 else { throw RegionManagerError.invalidResponse("the server refused every byte range (416)") }
                restarts += 1
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw AtomicFile.failure(job.partial.path) }
                offset = 0
            default:
                throw StoreClient.error(for: reply, server: Self.origin(job.url), productId: job.productId)
            }
            report()
        }
    }

    private func append(_ data: Data, fd: Int32, path: String) throws {
        try AtomicFile.writeAll(fd: fd, data: data, path: path)
        guard fsync(fd) == 0 else { throw AtomicFile.failure(path) }
    }

    static func origin(_ url: URL) -> String {
        "\(url.scheme ?? "http")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")"
    }

    /// Parses `bytes START-END/TOTAL`.
    static func contentRange(_ value: String?) -> (start: Int64, end: Int64)? {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).split(separator: "/").first ?? ""
        let parts = spec.split(separator: "-")
        guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]), end >= start else { return nil }
        return (start, end)
    }
}
