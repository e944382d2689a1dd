import Foundation
import RegionManager
import Synchronization

/// Serves one file the way `/api/v1/downloads/{id}` does (ETag = SHA-256, Range, If-Range), with
/// faults on demand: 503s before answering, a connection cut at a file offset, corrupted bytes.
final class BundleRoute: Sendable {
    struct State {
        var data: Data
        var sha256: String
        var unavailableAnswers = 0
        var cutAtOffset: Int64?
        var cutsLeft = 0
        var requests = 0
        var rangeStarts: [Int64] = []
        /// Bytes served differ from `data` at this offset (the ETag still names the good file).
        var corruptAt: Int?
    }

    let state: Mutex<State>

    init(data: Data) {
        state = Mutex(State(data: data, sha256: BundleRoute.hex(data)))
    }

    static func hex(_ data: Data) -> String { FileDigest.sha256(data: data) }

    var sha256: String { state.withLock { $0.sha256 } }
    var size: Int64 { state.withLock { Int64($0.data.count) } }
    var requests: Int { state.withLock { $0.requests } }
    var rangeStarts: [Int64] { state.withLock { $0.rangeStarts } }

    func respond(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        state.withLock { s in
            s.requests += 1
            if s.unavailableAnswers > 0 {
                s.unavailableAnswers -= 1
                return .json(503, #"{"error":{"code":"unavailable","message":"try later"}}"#)
            }
            var data = s.data
            if let at = s.corruptAt, at < data.count { data[at] ^= 0xFF }
            let etag = "\"\(s.sha256)\""
            var start = 0, end = data.count - 1
            var partial = false
            if let range = request.header("range"), range.hasPrefix("bytes="),
                request.header("if-range").map({ $0 == etag }) ?? true
            {
                let parts = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
                if parts.count == 2, let a = Int(parts[0]) {
                    guard a < data.count else {
                        return TestHTTPServer.Response(status: 416, headers: [("Content-Range", "bytes */\(data.count)")])
                    }
                    start = a
                    end = min(Int(parts[1]) ?? (data.count - 1), data.count - 1)
                    partial = true
                    s.rangeStarts.append(Int64(a))
                }
            }
            var response = TestHTTPServer.Response(
                status: partial ? 206 : 200,
                headers: [("ETag", etag), ("Accept-Ranges", "bytes")],
                body: data.subdata(in: start..<(end + 1)))
            if partial { response.headers.append(("Content-Range", "bytes \(start)-\(end)/\(data.count)")) }
            if let cut = s.cutAtOffset, s.cutsLeft > 0, cut >= Int64(start), cut <= Int64(end) {
                s.cutsLeft -= 1
                response.cutAfter = Int(cut) - start
            }
            return response
        }
    }
}
