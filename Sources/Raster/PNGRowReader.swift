import CPNG

/// Streaming PNG reader for large sources: decodes one row at a time as RGBA8, in memory bounded
/// by the image width (interlaced PNGs are decoded whole at open, within `maxInterlacedBytes`).
///
/// Not for sharing between threads: one user at a time. Closes its file when deallocated.
public final class PNGRowReader {
    /// Image width in pixels.
    public let width: Int
    /// Image height in pixels.
    public let height: Int
    /// Whether the source is Adam7-interlaced (decoded whole at open).
    public let isInterlaced: Bool
    private let reader: OpaquePointer

    /// Opens `path` and reads its header.
    /// - Parameters:
    ///   - maxPixels: larger images throw `.tooLarge` before anything is allocated.
    ///   - maxInterlacedBytes: interlaced images need `width * height * 4` bytes; larger ones
    ///     throw `.tooLarge` (save the source non-interlaced).
    public convenience init(
        path: String, maxPixels: Int = 1 << 32, maxInterlacedBytes: Int = 256 << 20
    ) throws(PNGError) {
        // Before libpng allocates rows of the width the header declares.
        try PNGImageData.check(path: path, maxPixels: maxPixels)
        try self.init(maxPixels: maxPixels, maxInterlacedBytes: maxInterlacedBytes) { reader, err, len in
            cpng_reader_open_file(reader, path, err, len)
        }
    }

    /// Reads from memory. The bytes are not copied: they must stay valid and unchanged for every
    /// call on this reader (use it only inside the `withUnsafeBytes` that produced them).
    convenience init(bytes: UnsafeRawBufferPointer, maxPixels: Int, maxInterlacedBytes: Int) throws(PNGError) {
        try self.init(maxPixels: maxPixels, maxInterlacedBytes: maxInterlacedBytes) { reader, err, len in
            cpng_reader_open_memory(
                reader, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, err, len)
        }
    }

    private init(
        maxPixels: Int, maxInterlacedBytes: Int,
        open: (OpaquePointer, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(PNGError) {
        guard
            let reader = cpng_reader_new(
                UInt64(clamping: max(0, maxPixels)), UInt64(clamping: max(0, maxInterlacedBytes)))
        else {
            throw .corrupt("out of memory")
        }
        let (status, message) = PNGShim.call { open(reader, $0, $1) }
        let width = Int(cpng_reader_width(reader))
        let height = Int(cpng_reader_height(reader))
        guard status == CPNG_OK else {
            cpng_reader_close(reader)
            throw PNGError.fromShim(status, message: message, width: width, height: height)
        }
        self.reader = reader
        self.width = width
        self.height = height
        self.isInterlaced = cpng_reader_interlaced(reader) != 0
    }

    deinit {
        cpng_reader_close(reader)
    }

    /// Rows delivered so far.
    public var rowsRead: Int { Int(cpng_reader_rows_read(reader)) }

    /// Reads the next row as RGBA8 into `row` (count >= width*4). Throws on corrupt/truncated data.
    /// Calling it after the last row is a programming error.
    public func readRow(into row: UnsafeMutableBufferPointer<UInt8>) throws(PNGError) {
        try readRows(into: row, count: 1, stride: width * 4)
    }

    /// Reads the next `count` rows as RGBA8, row `i` at offset `i * stride` (stride >= width*4).
    public func readRows(
        into buffer: UnsafeMutableBufferPointer<UInt8>, count: Int, stride: Int
    ) throws(PNGError) {
        guard count > 0 else { return }
        precondition(stride >= width * 4, "PNGRowReader: stride smaller than width * 4")
        precondition(buffer.count >= (count - 1) * stride + width * 4, "PNGRowReader: row buffer too small")
        precondition(count <= height - rowsRead, "PNGRowReader: read past the last row")
        let (status, message) = PNGShim.call {
            cpng_reader_read_rows(reader, buffer.baseAddress, UInt32(count), stride, $0, $1)
        }
        try check(status, message)
    }

    /// After the last row: checks the end of the stream (reports truncation/CRC errors).
    /// Rows not read yet are decoded and discarded first.
    public func finish() throws(PNGError) {
        let (status, message) = PNGShim.call { cpng_reader_finish(reader, $0, $1) }
        try check(status, message)
    }

    /// Reads all remaining rows and checks the end of the stream.
    func readImage() throws(PNGError) -> RGBAImage {
        precondition(rowsRead == 0, "PNGRowReader.readImage: rows were already read")
        let byteCount = width * height * 4
        var status = CPNG_OK
        var message = ""
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            (status, message) = PNGShim.call {
                cpng_reader_read_rows(reader, buffer.baseAddress, UInt32(height), width * 4, $0, $1)
            }
            initialized = status == CPNG_OK ? byteCount : 0
        }
        try check(status, message)
        try finish()
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    private func check(_ status: Int32, _ message: String) throws(PNGError) {
        guard status == CPNG_OK else {
            throw PNGError.fromShim(status, message: message, width: width, height: height)
        }
    }
}
