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

    public let http: RetryingHTTPClient
    /// Bytes per ranged request.
    public let chunkSize: Int

    public init(http: RetryingHTTPClient = RetryingHTTPClient(), chunkSize: Int = 1 << 20) {
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
        guard fd >= 0 else { throw RegionManagerError.errno(job.partial.path) }
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
        var failures = 0
        while offset < job.size {
            try Task.checkCancellation()
            let end = min(offset + Int64(chunkSize), job.size) - 1
            let x = Exchange()
            let from = offset
            do {
                try await fetch(job, from: from, to: end, fd: fd, into: x)
            } catch let error as RegionManagerError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // The connection failed mid-way: keep what arrived (in order), retry from there.
                offset = try keep(x.written, restarted: x.status == 200, from: from, fd: fd, path: job.partial.path)
                failures += 1
                guard RetryingHTTPClient.isTransient(error), failures < http.retry.attempts else {
                    throw RegionManagerError.serverUnreachable(
                        server: Self.origin(job.url), attempts: failures, reason: RetryingHTTPClient.describe(error))
                }
                report()
                try await Task.sleep(for: http.retry.delay(after: failures))
                continue
            }
            switch x.status {
            case 200, 206:
                guard x.written == x.expected else {
                    throw RegionManagerError.invalidResponse("the server sent \(x.written) of \(x.expected) bytes")
                }
                offset = try keep(x.written, restarted: x.status == 200, from: from, fd: fd, path: job.partial.path)
                failures = 0
            case 416:
                guard restarts == 0 else { throw RegionManagerError.invalidResponse("the server refused every byte range (416)") }
                restarts += 1
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw RegionManagerError.errno(job.partial.path) }
                offset = 0
            case 500...:
                failures += 1
                guard failures < http.retry.attempts else {
                    throw RegionManagerError.serverFailure(
                        status: x.status, attempts: failures, message: RetryingHTTPClient.errorMessage(x.errorBody))
                }
                let after = ServerInput.retryAfter(x.headers["retry-after"])
                try await Task.sleep(for: http.retry.delay(after: failures, retryAfter: after))
            default:
                throw StoreClient.error(
                    for: HTTPReply(status: x.status, headers: x.headers, body: x.errorBody),
                    server: Self.origin(job.url), productId: job.productId)
            }
            report()
        }
    }

    /// What one ranged request did, filled in by the stream's handlers (on the transport's queue).
    private final class Exchange: @unchecked Sendable {
        var status = 0
        var headers: [String: String] = [:]
        var written: Int64 = 0
        var expected: Int64 = 0
        var errorBody = Data()
    }

    /// One ranged request for bytes `from...end` of the job's file: the bytes go straight to the
    /// partial file as they arrive (at most what was asked for is read); a whole-file answer
    /// restarts the file; an error's body is kept in the exchange.
    private func fetch(_ job: Job, from: Int64, to end: Int64, fd: Int32, into x: Exchange) async throws {
        var request = URLRequest(url: job.url)
        request.httpMethod = "GET"
        request.setValue("bytes=\(from)-\(end)", forHTTPHeaderField: "Range")
        request.setValue("\"\(job.sha256)\"", forHTTPHeaderField: "If-Range")
        if let token = job.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (size, path) = (job.size, job.partial.path)
        try await http.stream(
            request,
            head: { status, headers in
                x.status = status
                x.headers = headers
                switch status {
                case 206:
                    guard let range = Self.contentRange(headers["content-range"]), range.start == from, range.end <= end else {
                        throw RegionManagerError.invalidResponse(
                            "bad partial answer (Content-Range \(headers["content-range"] ?? "none"))")
                    }
                    x.expected = range.end - range.start + 1
                case 200:
                    // The whole entity: a different version (If-Range failed) or no range support.
                    if let length = headers["content-length"].flatMap(Int64.init), length != size {
                        throw RegionManagerError.invalidResponse(
                            "the server's file has \(length) bytes, the catalog says \(size); install it again")
                    }
                    guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw RegionManagerError.errno(path) }
                    x.expected = size
                default:
                    return 64 << 10 // an error message
                }
                return x.expected
            },
            body: { data in
                guard x.status == 200 || x.status == 206 else { return x.errorBody.append(data) }
                try DurableFile.writeAll(fd: fd, data: data, path: path)
                x.written += Int64(data.count)
            })
    }

    /// Makes what one exchange wrote durable and returns the new offset (a whole-file answer
    /// restarted the file at 0).
    private func keep(_ written: Int64, restarted: Bool, from: Int64, fd: Int32, path: String) throws -> Int64 {
        guard fsync(fd) == 0 else { throw RegionManagerError.errno(path) }
        return (restarted ? 0 : from) + written
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
