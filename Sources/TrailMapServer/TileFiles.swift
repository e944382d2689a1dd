#if canImport(Glibc)
import Glibc
#endif
import CEpoll
import NIOCore

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
/// What is copied: a body of at least `minimumBytes` that fits in the limit, asked for
/// `admissionAsks` times on this loop while the loop remembers its asks, at most
/// `copiesPerSecond` copies a second (with a burst of `copyBurst`): a walk over more large tiles
/// than the limit holds makes few copies, not one a request. Which copy goes to make room: CLOCK
/// (a copy sent since the hand last passed is passed over once).
final class TileFiles {
    /// The smallest body worth a copy: below it, copying into the socket costs about what
    /// `sendfile`'s second system call does.
    static let minimumBytes = 32 * 1024
    /// Asks of a body before it is copied.
    static let admissionAsks: UInt8 = 2
    /// Bodies whose asks are remembered; past it the count starts again.
    static let asksRemembered = 4096
    /// Copies a loop keeps at most (each is a file descriptor).
    static let maximumCopies = 256
    /// Copies made a second, at most, once the burst is spent.
    static let copiesPerSecond: UInt64 = 64
    /// Copies that may be made at once.
    static let copyBurst: UInt64 = 16

    /// The body's storage and length: the copy's key.
    struct Key: Hashable {
        let address: UInt
        let count: Int

        init(_ body: ByteBuffer) {
            (address, count) = body.withUnsafeReadableBytes { (UInt(bitPattern: $0.baseAddress), $0.count) }
        }
    }

    private struct Copy {
        let key: Key
        let fd: Int32
        /// Keeps the bytes the key names alive and unchanged.
        let body: ByteBuffer
        var sent: Bool
    }

    /// Bytes the copies may hold on this loop.
    let byteLimit: Int
    /// Bytes the copies hold.
    private(set) var bytes = 0
    private var copies: [Copy] = []
    private var slots: [Key: Int] = [:]
    private var hand = 0
    private var asks: [Key: UInt8] = [:]
    /// Copies that may be made now (in millionths, refilled with time).
    private var allowance: UInt64
    private var refilled: UInt64
    /// Told every change of the copies' bytes and count.
    private let changed: (_ bytes: Int, _ copies: Int) -> Void

    /// - Parameters:
    ///   - byteLimit: bytes the copies may hold.
    ///   - now: monotonic nanoseconds.
    ///   - changed: told every change of bytes and count (as deltas).
    init(byteLimit: Int, now: UInt64, changed: @escaping (_ bytes: Int, _ copies: Int) -> Void = { _, _ in }) {
        self.byteLimit = byteLimit
        allowance = Self.copyBurst * 1_000_000
        refilled = now
        self.changed = changed
    }

    /// Copies held.
    var count: Int { copies.count }

    /// The sealed copy of `body` to send it from, made now if it has earned one; nil: send it
    /// from the buffer. The descriptor stays open until this loop's next call.
    func file(for body: ByteBuffer, now: UInt64) -> Int32? {
        let size = body.readableBytes
        guard size >= Self.minimumBytes, size <= byteLimit else { return nil }
        let key = Key(body)
        if let slot = slots[key] {
            copies[slot].sent = true
            return copies[slot].fd
        }
        let seen = (asks[key] ?? 0) &+ 1
        guard seen >= Self.admissionAsks, spendAllowance(now) else {
            if asks.count >= Self.asksRemembered { asks.removeAll(keepingCapacity: true) }
            asks[key] = max(seen, 1)
            return nil
        }
        asks[key] = nil
        makeRoom(for: size)
        let fd = body.withUnsafeReadableBytes { cepoll_sealed_copy($0.baseAddress, $0.count) }
        guard fd >= 0 else { return nil }
        slots[key] = copies.count
        copies.append(Copy(key: key, fd: fd, body: body, sent: true))
        bytes += size
        changed(size, 1)
        return fd
    }

    /// Closes every copy.
    func removeAll() {
        while !copies.isEmpty { evict(copies.count - 1) }
    }

    deinit { removeAll() }

    private func spendAllowance(_ now: UInt64) -> Bool {
        let cap = Self.copyBurst * 1_000_000
        if now > refilled {
            allowance = min(cap, allowance + (now - refilled) / 1_000 * Self.copiesPerSecond)
            refilled = now
        }
        guard allowance >= 1_000_000 else { return false }
        allowance -= 1_000_000
        return true
    }

    /// Evicts until `size` more bytes and one more copy fit. Every pass of the hand clears the
    /// marks it passes, so two passes always free enough.
    private func makeRoom(for size: Int) {
        while !copies.isEmpty, bytes + size > byteLimit || copies.count >= Self.maximumCopies {
            if hand >= copies.count { hand = 0 }
            if copies[hand].sent {
                copies[hand].sent = false
                hand += 1
            } else {
                evict(hand)
            }
        }
    }

    /// Closes copy `slot`; the last copy takes its place.
    private func evict(_ slot: Int) {
        let gone = copies[slot]
        Glibc.close(gone.fd)
        slots[gone.key] = nil
        let last = copies.count - 1
        if slot != last {
            copies[slot] = copies[last]
            slots[copies[slot].key] = slot
        }
        copies.removeLast()
        bytes -= gone.key.count
        changed(-gone.key.count, -1)
    }
}
