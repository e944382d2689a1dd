import CZlib
import Foundation

/// gzip compression (HTTP bodies, PMTiles directories and metadata) and decompression with a
/// hard limit on the output (PMTiles directories and metadata of untrusted archives).
public enum Gzip {
    /// The gzip stream of `input`, or nil if zlib fails.
    public static func compress(_ input: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let status = input.withUnsafeBufferPointer { inp in
            output.withUnsafeMutableBufferPointer { out -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
                stream.avail_in = UInt32(inp.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// The bytes a gzip stream holds (one member; trailing bytes after it are refused). Never
    /// produces more than `limit` bytes: a stream that would is refused with `.tooLarge` as soon
    /// as the limit is passed, so a zip bomb costs at most `limit` bytes of memory.
    public static func decompress<Bytes: ContiguousBytes>(_ input: Bytes, limit: Int) throws(GzipError) -> [UInt8] {
        let limit = max(0, limit)
        var stream = z_stream()
        // windowBits 15 + 16: the gzip wrapper only (header and CRC-32 checked).
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8]()
        // Inflated 64 KiB at a time, each step given at most the room left under the limit + 1
        // byte (the extra byte tells a stream of exactly `limit` bytes from a longer one).
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let overLimit: Int32 = -10_000 // not a zlib status
        let status: Int32 = input.withUnsafeBytes { raw in
            guard raw.count <= Int(UInt32.max) else { return Z_BUF_ERROR }
            stream.next_in = UnsafeMutablePointer(mutating: raw.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = UInt32(raw.count)
            var status: Int32 = Z_OK
            while true {
                let room = min(chunk.count, limit + 1 - output.count)
                status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(room)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = room - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return overLimit }
                if status == Z_STREAM_END { return status }
                guard status == Z_OK else { return status }
                // No progress with room left and no input: the stream is cut short.
                if produced == 0, stream.avail_in == 0 { return Z_BUF_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END:
            guard stream.avail_in == 0 else { throw .corrupt("\(stream.avail_in) bytes follow the end of the stream") }
            return output
        case overLimit: throw .tooLarge(limit: limit)
        case Z_BUF_ERROR: throw .corrupt("the stream is cut short")
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw .corrupt(message)
        }
    }
}
