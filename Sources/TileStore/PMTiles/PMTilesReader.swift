import Essentials
import Foundation
import Synchronization
import TileGeometry

/// Reads tiles from a PMTiles v3 archive by positional reads (`pread`) on one descriptor: the
/// file is never read whole. Opening checks the header and decodes the root directory once; leaf
/// directories are decoded on demand and kept in a small cache bounded by their entries. Lookups
/// follow the specification: binary search, run lengths, leaf descent at most `maxLeafDepth`
/// levels deep. Tiles come back as stored (raster tiles are stored uncompressed).
///
/// Every malformed input is a `TileStoreError.pmtiles` naming the problem, never a crash: a
/// truncated file, another magic or version, sections or entries outside the file, varints over
/// 64 bits, absurd counts, leaf cycles, compressed data that does not decompress or decompresses
/// past `maxDirectoryBytes` (a zip bomb).
///
/// Safe for concurrent use: reads need no lock; the leaf cache has one.
public final class PMTilesReader: TileSource {
    public let path: String
    public let header: PMTilesHeader
    /// The file's size when it was opened.
    public let fileSize: Int64
    private let fd: Int32
    private let root: [PMTilesFormat.Entry]
    private let leaves: Mutex<PMTilesLeafCache>
    let bounds: PMTilesDirectory.Bounds

    /// Leaf levels below the root a lookup follows (the specification's readers stop at 3).
    public static let maxLeafDepth = 3
    /// The most bytes a leaf directory or the metadata may take, compressed or not.
    public static let maxDirectoryBytes = 8 << 20
    /// The most bytes the root directory may take decompressed: it is kept while the archive is
    /// open (24 bytes an entry), and the specification keeps it within 16 KiB compressed.
    public static let maxRootBytes = 1 << 20
    /// The largest tile served.
    public static let maxTileBytes = 32 << 20
    /// Default bound of the leaf cache, in entries (24 bytes each: 1.5 MiB).
    public static let defaultLeafCacheEntries = 65_536

    /// Opens the archive, checks its header and decodes its root directory.
    public init(path: String, leafCacheEntries: Int = PMTilesReader.defaultLeafCacheEntries) throws(TileStoreError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw errno == ENOENT ? .notFound(path: path) : .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .unreadable(path: path, reason: reason)
        }
        self.fd = fd
        fileSize = Int64(st.st_size)
        leaves = Mutex(PMTilesLeafCache(maxEntries: leafCacheEntries))
        do throws(PMTilesProblem) {
            let head = try Self.read(fd: fd, offset: 0, count: min(PMTilesFormat.headerSize, Int(max(0, st.st_size))))
            header = try PMTilesHeader(head, fileSize: fileSize)
            bounds = PMTilesDirectory.Bounds(tileDataLength: header.tileDataLength, leafLength: header.leafLength)
            root = try Self.directory(
                fd: fd, header: header, offset: header.rootOffset, length: header.rootLength,
                bounds: bounds, name: "root directory", limit: Self.maxRootBytes)
        } catch {
            close(fd)
            throw .pmtiles(path: path, problem: error)
        }
    }

    deinit { close(fd) }

    /// The root directory's entries.
    public var rootEntries: [PMTilesFormat.Entry] { root }

    public func withTile<R>(_ tile: TileID, _ body: (UnsafeRawBufferPointer, String?) throws -> R) throws -> R? {
        guard let entry = try entry(for: PMTilesFormat.tileID(tile)) else { return nil }
        guard Int(entry.length) <= Self.maxTileBytes else {
            throw TileStoreError.pmtiles(path: path, problem: .tileTooLarge(length: entry.length, limit: Self.maxTileBytes))
        }
        let count = Int(entry.length), offset = header.tileDataOffset + entry.offset
        // A temporary buffer (on the stack when the runtime finds room): the only copy kept is the cache's.
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 16) { buffer in
            try fill(buffer, at: offset)
            return try body(UnsafeRawBufferPointer(buffer), nil)
        }
    }

    /// The tile's bytes as stored, or nil when the archive has no such tile.
    public func tile(_ tile: TileID) throws(TileStoreError) -> [UInt8]? {
        do { return try withTile(tile) { bytes, _ in Array(bytes) } } catch let e as TileStoreError { throw e } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// The tile entry holding a tile id, descending through leaf directories; nil when absent.
    public func entry(for tileID: UInt64) throws(TileStoreError) -> PMTilesFormat.Entry? {
        var directory = root
        var visited: [UInt64] = []
        while true {
            guard let e = PMTilesDirectory.find(tileID, in: directory) else { return nil }
            if e.runLength > 0 { return e }
            guard visited.count < Self.maxLeafDepth, !visited.contains(e.offset) else {
                throw .pmtiles(path: path, problem: .leafCycle(offset: e.offset, depth: Self.maxLeafDepth))
            }
            visited.append(e.offset)
            directory = try leaf(e)
        }
    }

    /// A leaf directory, from the cache or decoded (outside the lock) and then cached.
    func leaf(_ e: PMTilesFormat.Entry) throws(TileStoreError) -> [PMTilesFormat.Entry] {
        if let hit = leaves.withLock({ $0.get(e.offset) }) { return hit }
        let entries = try readLeaf(e)
        leaves.withLock { $0.put(e.offset, entries) }
        return entries
    }

    /// Decodes a leaf directory without the cache.
    func readLeaf(_ e: PMTilesFormat.Entry) throws(TileStoreError) -> [PMTilesFormat.Entry] {
        do throws(PMTilesProblem) {
            return try Self.directory(
                fd: fd, header: header, offset: header.leafOffset + e.offset, length: UInt64(e.length),
                bounds: bounds, name: "leaf directory at offset \(e.offset)")
        } catch { throw .pmtiles(path: path, problem: error) }
    }

    /// Leaves and entries held by the leaf cache.
    public var cachedLeaves: (leaves: Int, entries: Int) { leaves.withLock { ($0.count, $0.entryCount) } }

    /// The JSON metadata section, decompressed, as a JSON object.
    public func metadataObject() throws(TileStoreError) -> [String: Any] {
        do throws(PMTilesProblem) {
            let bytes = try Self.section(
                fd: fd, header: header, offset: header.metadataOffset, length: header.metadataLength,
                name: "JSON metadata")
            if bytes.isEmpty { return [:] }
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) else {
                throw PMTilesProblem.metadata("is not valid JSON")
            }
            guard let dictionary = object as? [String: Any] else { throw PMTilesProblem.metadata("is not a JSON object") }
            return dictionary
        } catch { throw .pmtiles(path: path, problem: error) }
    }

    /// Reads bytes of the tile data section (for verification).
    public func tileData(offset: UInt64, length: UInt32) throws(TileStoreError) -> [UInt8] {
        guard Int(length) <= Self.maxTileBytes else {
            throw .pmtiles(path: path, problem: .tileTooLarge(length: length, limit: Self.maxTileBytes))
        }
        do throws(PMTilesProblem) { return try Self.read(fd: fd, offset: header.tileDataOffset + offset, count: Int(length)) } catch {
            throw .pmtiles(path: path, problem: error)
        }
    }

    // MARK: - Reading the file

    /// A directory: read, decompressed as the header says, decoded and checked.
    static func directory(
        fd: Int32, header: PMTilesHeader, offset: UInt64, length: UInt64, bounds: PMTilesDirectory.Bounds,
        name: String, limit: Int = maxDirectoryBytes
    ) throws(PMTilesProblem) -> [PMTilesFormat.Entry] {
        try PMTilesDirectory.decode(
            section(fd: fd, header: header, offset: offset, length: length, name: name, limit: limit),
            bounds: bounds, name: name)
    }

    /// A directory's or the metadata's bytes, decompressed (internal compression), at most `limit` bytes either way.
    static func section(
        fd: Int32, header: PMTilesHeader, offset: UInt64, length: UInt64, name: String,
        limit: Int = maxDirectoryBytes
    ) throws(PMTilesProblem) -> [UInt8] {
        guard length <= UInt64(limit) else { throw .sectionTooLarge(section: name, length: length, limit: limit) }
        let raw = try read(fd: fd, offset: offset, count: Int(length))
        guard header.internalCompression == .gzip else { return raw }
        do throws(GzipError) { return try Gzip.decompress(raw, limit: limit) } catch { throw .compressedData(section: name, error) }
    }

    /// `count` bytes at `offset`.
    static func read(fd: Int32, offset: UInt64, count: Int) throws(PMTilesProblem) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var failure: PMTilesProblem?
        bytes.withUnsafeMutableBytes { buffer in
            do throws(PMTilesProblem) { try fill(fd: fd, buffer, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
        return bytes
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(TileStoreError) {
        do throws(PMTilesProblem) { try Self.fill(fd: fd, buffer, at: offset) } catch { throw .pmtiles(path: path, problem: error) }
    }

    /// Fills `buffer` from `offset` by `pread`, retrying short reads and interruptions.
    static func fill(fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(PMTilesProblem) {
        var done = 0
        while done < buffer.count {
            guard let base = buffer.baseAddress, offset <= UInt64(Int64.max) - UInt64(buffer.count) else {
                throw .readFailed("offset \(offset) is out of range")
            }
            let n = pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n > 0 {
                done += n
            } else if n == 0 {
                throw .readFailed(
                    """
                    the file ends at byte \(offset + UInt64(done)), before the \(buffer.count) bytes at \(offset): it was truncated after \
                    it was opened
                    """
                )
            } else if errno != EINTR {
                throw .readFailed(String(cString: strerror(errno)))
            }
        }
    }
}
