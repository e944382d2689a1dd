import Foundation

/// Problems storing decoded source pixels.
public enum PixelStorageError: Error, CustomStringConvertible, Equatable {
    case cannotCreate(path: String, reason: String)
    case io(String)

    public var description: String {
        switch self {
        case let .cannotCreate(path, reason): "cannot create the temporary pixel file \(path): \(reason)"
        case let .io(reason): "temporary pixel file: \(reason)"
        }
    }
}

/// Byte-addressed storage for decoded pixels: in memory for small sources, or in an unlinked
/// temporary file (read back with `pread`, so it lives in the page cache, not in the process)
/// for sources larger than the memory budget. Writes happen once, from one thread, before any read;
/// reads are then safe from many threads.
final class PixelStorage: @unchecked Sendable {
    private let memory: UnsafeMutableRawPointer?
    private let fd: Int32
    let size: Int

    /// Memory-backed storage of `size` bytes, zero-filled.
    init(memorySize size: Int) {
        self.size = size
        memory = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
        memory?.initializeMemory(as: UInt8.self, repeating: 0, count: max(size, 1))
        fd = -1
    }

    /// File-backed storage in `directory`; the file is unlinked at once, so nothing is left behind.
    init(fileSize size: Int, directory: String) throws(PixelStorageError) {
        let path = (directory as NSString).appendingPathComponent(".trailmap-pixels-\(getpid())-\(UUID().uuidString)")
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        unlink(path)
        guard ftruncate(fd, off_t(size)) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotCreate(path: path, reason: reason)
        }
        self.fd = fd
        self.size = size
        memory = nil
    }

    deinit {
        memory?.deallocate()
        if fd >= 0 { close(fd) }
    }

    /// Whether the pixels live in a file rather than in memory.
    var isFileBacked: Bool { memory == nil }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(PixelStorageError) {
        precondition(offset >= 0 && offset + bytes.count <= size)
        if let memory {
            (memory + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            return
        }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("write failed: \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) {
        precondition(offset >= 0 && offset + count <= size)
        if let memory {
            buffer.copyMemory(from: memory + offset, byteCount: count)
            return
        }
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n <= 0 {
                if n < 0, errno == EINTR { continue }
                // The file was sized up front; a short read means the disk failed. Leave zeros (transparent).
                (buffer + done).initializeMemory(as: UInt8.self, repeating: 0, count: count - done)
                return
            }
            done += n
        }
    }
}
