#if canImport(Glibc)
import Glibc
#endif
import CEpoll
import NIOCore
import TileCache

/// Sealed memory-file copies of large tiles, which a tile loop sends with `sendfile`: the kernel
/// hands the file's pages to the socket, where a send from the buffer copies every byte into the
/// socket's own memory (docs/serving.md). One per loop, touched only by its thread.
///
/// A copy is keyed by where the cached tile's bytes are and how many there are, and it keeps that
/// buffer: while the copy lives, those bytes can be neither freed nor changed (a `ByteBuffer` whose
/// storage is shared copies itself before a write), so a key names these bytes and no others. A
/// tile evicted from the cache and read again is another buffer, so another key; its old copy
/// ages out.
///
/// What is copied: a body of `minimumBytes` to `maximumBytes` that fits in the limit, asked for
/// `admissionAsks` times on this loop while the loop remembers its asks, at most
/// `copiesPerSecond` copies a second (after a burst of `copyBurst`): a walk over more large tiles
/// than the limit holds makes at most that many copies a second, not one a request. Which copy
/// goes to make room: the cache's `SIEVEPolicy` (the hand passes over a copy sent since it last
/// passed, once).
final class TileFiles {
    /// The smallest body worth a copy: below it, copying into the socket costs about what
    /// `sendfile`'s second system call does.
    static let minimumBytes = 32 * 1024
    /// The largest body copied (the copy is written on the loop's thread).
    static let maximumBytes = 4 << 20
    /// Asks of a body before it is copied.
    static let admissionAsks: UInt8 = 2
    /// Bodies whose asks are remembered; past it the count starts again.
    static let asksRemembered = 4096
    /// Copies made a second, at most, once the burst is spent.
    static let copiesPerSecond: UInt64 = 64
    /// Copies that may be made at once.
    static let copyBurst: UInt64 = 16
    /// The memory a copy of `count` bytes takes: whole pages.
    static func cost(of count: Int) -> Int { (count + 4095) & ~4095 }

    /// The body's storage and length: the copy's key.
    struct Key: Hashable {
        let address: UInt
        let count: Int

        init(_ body: ByteBuffer) {
            (address, count) = body.withUnsafeReadableBytes { (UInt(bitPattern: $0.baseAddress), $0.count) }
        }
    }

    private struct Copy {
        let fd: Int32
        /// Keeps the bytes the key names alive and unchanged.
        let body: ByteBuffer
    }

    /// What the copies may take on this loop, in bytes (`cost(of:)`).
    let byteLimit: Int
    /// Copies this loop keeps at most (each is a file descriptor).
    let copyLimit: Int
    /// What the copies take (`cost(of:)`).
    private(set) var bytes = 0
    private var copies: [Key: Copy] = [:]
    /// Which copy goes next; a copy sent is marked.
    private var order = SIEVEPolicy<Key>()
    private var asks: [Key: UInt8] = [:]
    /// Copies that may be made now (in millionths, refilled with time).
    private var allowance: UInt64
    private var refilled: UInt64
    /// Told every change of the copies' bytes and count.
    private let changed: (_ bytes: Int, _ copies: Int) -> Void
    /// Told the `errno` of a copy that could not be made.
    private let failed: (_ errno: Int32) -> Void

    /// - Parameters:
    ///   - byteLimit: what the copies may take, in bytes.
    ///   - copyLimit: how many copies there may be.
    ///   - now: monotonic nanoseconds.
    ///   - changed: told every change of bytes and count (as deltas).
    ///   - failed: told the `errno` of a copy the system refused.
    init(
        byteLimit: Int, copyLimit: Int = 256, now: UInt64, changed: @escaping (_ bytes: Int, _ copies: Int) -> Void = { _, _ in },
        failed: @escaping (_ errno: Int32) -> Void = { _ in }
    ) {
        self.byteLimit = byteLimit
        self.copyLimit = max(1, copyLimit)
        allowance = Self.copyBurst * 1_000_000
        refilled = now
        self.changed = changed
        self.failed = failed
    }

    /// Copies held.
    var count: Int { copies.count }

    /// The sealed copy of `body` to send it from, made now if it has earned one; nil: send it
    /// from the buffer. The descriptor stays open until this loop's next call.
    func file(for body: ByteBuffer, now: UInt64) -> Int32? {
        let size = body.readableBytes
        guard size >= Self.minimumBytes, size <= Self.maximumBytes, Self.cost(of: size) <= byteLimit else { return nil }
        let key = Key(body)
        if let copy = copies[key] {
            order.recordHit(key)
            return copy.fd
        }
        let before = asks[key] ?? 0
        let seen = before == .max ? before : before + 1
        guard seen >= Self.admissionAsks, spendAllowance(now) else {
            if asks[key] == nil, asks.count >= Self.asksRemembered { asks.removeAll(keepingCapacity: true) }
            asks[key] = seen
            return nil
        }
        asks[key] = nil
        let fd = body.withUnsafeReadableBytes { cepoll_sealed_copy($0.baseAddress, $0.count) }
        guard fd >= 0 else {
            failed(errno)
            return nil
        }
        makeRoom(for: size)
        copies[key] = Copy(fd: fd, body: body)
        order.insert(key, cost: Self.cost(of: size), priority: .demand)
        order.recordHit(key)
        bytes += Self.cost(of: size)
        changed(Self.cost(of: size), 1)
        return fd
    }

    /// Closes every copy.
    func removeAll() {
        for (key, copy) in copies {
            Glibc.close(copy.fd)
            changed(-Self.cost(of: key.count), -1)
        }
        copies.removeAll()
        order = SIEVEPolicy()
        bytes = 0
    }

    deinit { removeAll() }

    private func spendAllowance(_ now: UInt64) -> Bool {
        let cap = Self.copyBurst * 1_000_000
        if now > refilled {
            let microseconds = (now - refilled) / 1_000
            allowance = min(cap, allowance + min(microseconds, cap) * Self.copiesPerSecond)
            refilled += microseconds * 1_000
        }
        guard allowance >= 1_000_000 else { return false }
        allowance -= 1_000_000
        return true
    }

    /// Evicts until `size` more bytes and one more copy fit.
    private func makeRoom(for size: Int) {
        while bytes + Self.cost(of: size) > byteLimit || copies.count >= copyLimit {
            guard let key = order.evict(), let gone = copies.removeValue(forKey: key) else { return }
            Glibc.close(gone.fd)
            bytes -= Self.cost(of: key.count)
            changed(-Self.cost(of: key.count), -1)
        }
    }
}
