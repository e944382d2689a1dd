import CEpoll
import Glibc

/// The error handling a tile loop's non-blocking socket calls share.
enum SocketCall {
    /// Makes `call` (a system call returning a count, or -1 with `errno` set) again while it
    /// fails with `EINTR`: an interrupted call leaves the socket as it was, and an edge-triggered
    /// loop waiting for its next edge after one could wait forever.
    @inline(__always)
    static func retryingInterrupts(_ call: () -> Int) -> Int {
        var result: Int
        repeat { result = call() } while result < 0 && errno == EINTR
        return result
    }

    /// `sendmsg` of the first `count` of `vectors` to `fd`, with `MSG_NOSIGNAL`: a peer gone is
    /// an `EPIPE`, never a SIGPIPE (whatever the process does with the signal).
    @inline(__always)
    static func send(_ fd: Int32, _ vectors: UnsafeMutableBufferPointer<iovec>, count: Int) -> Int {
        var message = msghdr()
        message.msg_iov = vectors.baseAddress
        message.msg_iovlen = count
        return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
    }

    /// Whether the call that just failed found the socket full or empty (`EAGAIN`): its next edge
    /// goes on, any other failure ends the connection.
    @inline(__always)
    static var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}
