import Foundation

/// Whether a PNG file holds enough compressed image data for the rows its header declares, read
/// from its chunk headers before anything is decoded: a file of a few dozen bytes declaring
/// billions of pixels made the builder allocate gigabytes (whatever `--memory-limit` said)
/// before libpng found the data missing.
enum PNGImageData {
    /// Deflate's largest expansion: a 258-byte match coded in two bits gives 1,032 bytes out per
    /// byte in.
    static let maxRatio = 1032

    /// Throws `.corrupt` when the IDAT chunks of the PNG at `path` cannot inflate to the rows its
    /// header declares. Files it cannot read or parse, and images of more than `maxPixels`
    /// pixels (`.tooLarge`), are left to the decoder, which says why.
    static func check(path: String, maxPixels: Int) throws(PNGError) {
        guard let file = FileHandle(forReadingAtPath: path) else { return }
        defer { try? file.close() }
        func read(_ count: Int) -> [UInt8]? {
            guard let data = try? file.read(upToCount: count), data.count == count else { return nil }
            return [UInt8](data)
        }
        func be32(_ b: ArraySlice<UInt8>) -> Int { b.reduce(0) { $0 << 8 | Int($1) } }
        guard read(8) != nil else { return }
        var header: (width: Int, height: Int, depth: Int, colourType: Int)?
        var compressed = 0
        while let chunk = read(8) {
            let length = be32(chunk[0..<4]), type = String(decoding: chunk[4..<8], as: UTF8.self)
            if type == "IHDR" {
                guard length == 13, let d = read(13) else { return }
                header = (be32(d[0..<4]), be32(d[4..<8]), Int(d[8]), Int(d[9]))
                guard (try? file.seek(toOffset: file.offset() + 4)) != nil else { return }
            } else {
                if type == "IDAT" { compressed += length }
                if type == "IEND" { break }
                guard let at = try? file.offset(), (try? file.seek(toOffset: at + UInt64(length) + 4)) != nil else { break }
            }
        }
        guard let h = header else { return }
        let (pixels, overflow) = h.width.multipliedReportingOverflow(by: h.height)
        guard !overflow, pixels <= maxPixels else { return }
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][h.colourType] ?? 4
        // One filter byte a row, then the row's samples (the smaller, non-interlaced layout).
        let (bits, o1) = h.width.multipliedReportingOverflow(by: channels * max(h.depth, 1))
        let (needed, o2) = (1 + (bits + 7) / 8).multipliedReportingOverflow(by: h.height)
        let (possible, o3) = compressed.multipliedReportingOverflow(by: maxRatio)
        if o1 || o2 || (!o3 && needed > possible + 1024) {
            throw .corrupt(
                """
                its image data (\(compressed) bytes compressed) cannot hold the \(h.width)×\(h.height) pixels its header declares: the \
                file is truncated or damaged
                """
            )
        }
    }
}
