#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// One connection of a `RawTileLoop`, touched only by its thread.
final class RawTileConnection {
    let fd: Int32
    /// The remote address, formatted when prefetch first asks.
    let address: sockaddr_storage
    var client: PrefetchClient
    /// Bytes read and not answered yet (the start of a request, or requests waiting behind an
    /// answer the socket has not taken yet).
    var input: [UInt8] = []
    /// Answers (or their unsent ends) the socket has not taken yet, oldest first.
    var output: [ByteBuffer] = []
    /// When the current request's first byte arrived (monotonic ns); nil between requests.
    var requestStarted: UInt64?
    /// When a byte was last read or written (monotonic ns).
    var lastActivity: UInt64
    /// The client asked to close: once `output` is sent, the connection closes.
    var closeWhenSent = false
    /// A request for Hummingbird is in `input`: once `output` is sent, the connection is handed on.
    var handOffWhenSent = false
    /// The catalog read (its number) the request at the start of `input` waits for
    /// (`CatalogWait`). Nothing more is answered or read until it ends.
    var waitingForCatalog: UInt64?
    /// The catalog reads the request at the start of `input` had (`CatalogWait.reason`): if it
    /// needs one of them again, it is handed on.
    private var waitedForGrant = false
    private var waitedForPaidMap = false
    /// What the catalog read the request at the start of `input` waited for refused it with
    /// (`TileAccess.read`): answered on the loop, not asked again elsewhere.
    var refusal: CatalogRefusal?
    /// The socket may hold bytes not read yet: an edge came while `output` waited, or the last
    /// read filled the loop's buffer.
    var unread = false
    /// The client shut down its sending side (EPOLLRDHUP): what is left is read until the end,
    /// and the connection closes there once its answers are sent.
    var inputEnded = false
    /// In the loop's list of connections to go back to without a new edge (`RawTileLoop.later`).
    var later = false
    /// `input` holds requests left unanswered when the connection had its share of answers for
    /// the loop's turn (`RawTileLoop.answersPerTurn`).
    var answerLater = false

    init(fd: Int32, address: sockaddr_storage, client: PrefetchClient, now: UInt64) {
        self.fd = fd
        self.address = address
        self.client = client
        lastActivity = now
    }

    /// Whether the request at the start of `input` has had a catalog read for `reason`.
    func hasWaited(for reason: CatalogWait.Reason) -> Bool {
        switch reason {
        case .grant: waitedForGrant
        case .paidMap: waitedForPaidMap
        }
    }

    /// The request at the start of `input` waits for a catalog read for `reason`.
    func waits(for reason: CatalogWait.Reason) {
        switch reason {
        case .grant: waitedForGrant = true
        case .paidMap: waitedForPaidMap = true
        }
    }

    /// The request at the start of `input` was answered: the next has had no catalog read.
    func answered() {
        waitedForGrant = false
        waitedForPaidMap = false
        refusal = nil
    }

    /// The remote IP address as text (as NIO's `SocketAddress.ipAddress` gives it).
    func ipAddress() -> String? {
        var address = address
        let family = Int32(address.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok: Bool = withUnsafePointer(to: &address) { pointer in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    return inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var a = sin.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) != nil
                }
            default:
                false
            }
        }
        return ok ? String(cString: text) : nil
    }

    /// Writes what it can of `output` (`sendmsg`, up to 64 buffers a call, the vectors on the
    /// stack); the bytes written, or -1 when the socket failed.
    func flushOutput() -> Int {
        var total = 0
        while !output.isEmpty {
            let count = min(output.count, 64)
            // The buffers stay alive (and unmoved) in `output` during the call.
            let written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
                for i in 0..<count {
                    output[i].withUnsafeReadableBytes {
                        vectors[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
                    }
                }
                return SocketCall.retryingInterrupts { SocketCall.send(fd, vectors, count: count) }
            }
            if written < 0 { return SocketCall.wouldBlock ? total : -1 }
            consume(written)
            total += written
            if written == 0 { return total }
        }
        return total
    }

    /// Queues in `output` what a send of `head` then `body` left after its first `sent` bytes.
    func queue(_ head: ByteBuffer, _ body: ByteBuffer?, after sent: Int) {
        var head = head
        var body = body
        if sent < head.readableBytes {
            head.moveReaderIndex(forwardBy: sent)
            output.append(head)
        } else {
            body?.moveReaderIndex(forwardBy: sent - head.readableBytes)
        }
        if let body, body.readableBytes > 0 { output.append(body) }
    }

    /// Drops `count` sent bytes from the front of `output` (keeping its storage for the next answer).
    private func consume(_ count: Int) {
        var left = count
        var done = 0
        for i in output.indices {
            let n = output[i].readableBytes
            if left >= n {
                left -= n
                done += 1
            } else {
                output[i].moveReaderIndex(forwardBy: left)
                break
            }
        }
        if done == output.count {
            output.removeAll(keepingCapacity: true)
        } else {
            output.removeFirst(done)
        }
    }
}
