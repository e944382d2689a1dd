import Glibc
import NIOCore
import Testing
import TileCache
@testable import TrailMapServer

/// What a tile loop queues after a send the socket took only part of (`RawTileConnection.queue`),
/// written out by `flushOutput` over a real socket pair.
@Suite struct RawTileConnectionTests {
    /// A connection on one end of a stream socket pair; the other end is read here.
    private static func pair() throws -> (RawTileConnection, Int32) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let connection = RawTileConnection(fd: fds[0], address: sockaddr_storage(), client: PrefetchClient(CacheConfiguration()), now: 0)
        return (connection, fds[1])
    }

    private static func readAll(_ fd: Int32, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n <= 0 { break }
            got += n
        }
        return Array(bytes[..<got])
    }

    @Test(arguments: [false, true])
    func theRestAfterEverySplitIsWhatWasNotSent(withBody: Bool) throws {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n".utf8)
        let body = withBody ? Array("tile-body".utf8) : []
        let whole = head + body
        for sent in 0..<whole.count {
            let (connection, peer) = try Self.pair()
            defer {
                close(connection.fd)
                close(peer)
            }
            let allocator = ByteBufferAllocator()
            connection.queue(allocator.buffer(bytes: head), withBody ? allocator.buffer(bytes: body) : nil, after: sent)
            // Nothing empty is queued: the split at the head's end leaves the body alone.
            #expect(connection.output.allSatisfy { $0.readableBytes > 0 })
            #expect(connection.output.count == (sent < head.count && withBody ? 2 : 1))
            let written = connection.flushOutput()
            #expect(written == whole.count - sent)
            #expect(connection.output.isEmpty)
            #expect(Self.readAll(peer, count: whole.count - sent) == Array(whole[sent...]), "split at \(sent)")
        }
    }

    /// A flush to a peer that is gone fails (EPIPE) without raising SIGPIPE, whose default action
    /// ends the process: the server must not depend on the signal being ignored. SIGPIPE is
    /// blocked on this thread for the test, so one raised by the write stays pending here (an
    /// ignored signal that is blocked is kept) instead of being discarded or reaching others.
    @Test func flushingToAClosedPeerFailsWithoutSIGPIPE() throws {
        let (connection, peer) = try Self.pair()
        defer { close(connection.fd) }
        close(peer)
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        var old = sigset_t()
        try #require(pthread_sigmask(SIG_BLOCK, &pipe, &old) == 0)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        connection.queue(ByteBufferAllocator().buffer(bytes: Array("HTTP/1.1 200 OK\r\n\r\n".utf8)), nil, after: 3)
        let result = connection.flushOutput()
        var pending = sigset_t()
        sigpending(&pending)
        let raised = sigismember(&pending, SIGPIPE) == 1
        if raised {
            // Taken off this thread before it is unblocked (it is pending, so no wait).
            var taken: Int32 = 0
            _ = sigwait(&pipe, &taken)
        }
        #expect(result == -1)
        #expect(!raised, "the flush raised SIGPIPE")
    }
}
