import Foundation

/// A decoded source image with its overviews (each level half the size of the one above, by 2×2
/// alpha-weighted averaging), built in one streaming pass over the PNG's rows so that memory stays
/// bounded whatever the source size.
public final class SourcePyramid: Sendable {
    /// One level of the pyramid.
    public struct Level: Sendable {
        public let width: Int
        public let height: Int
        let offset: Int
    }

    public let width: Int
    public let height: Int
    let levelInfo: [Level]
    /// The levels as a `SourceWindowReader` describes them (scale 2^i).
    public let levels: [SourceLevel]
    private let storage: PixelStorage

    /// Whether the pixels were spilled to a temporary file.
    public var isFileBacked: Bool { storage.isFileBacked }

    /// Bytes of decoded pixels across all levels.
    public var byteCount: Int { storage.size }

    /// Pyramid level sizes for an image, down to 1×1.
    static func levelSizes(width: Int, height: Int) -> [(Int, Int)] {
        var sizes = [(width, height)]
        var (w, h) = (width, height)
        while w > 1 || h > 1 {
            w = (w + 1) / 2
            h = (h + 1) / 2
            sizes.append((w, h))
        }
        return sizes
    }

    /// Bytes needed to hold the whole pyramid of an image.
    public static func byteCount(width: Int, height: Int) -> Int {
        levelSizes(width: width, height: height).reduce(0) { $0 + $1.0 * $1.1 * 4 }
    }

    /// Decodes every row from `reader`. Pixels go to memory when the pyramid needs at most
    /// `memoryBudget` bytes, otherwise to an unlinked temporary file in `spillDirectory`.
    public init(reader: PNGRowReader, memoryBudget: Int, spillDirectory: String) throws {
        width = reader.width
        height = reader.height
        var levels = [Level]()
        var offset = 0
        for (w, h) in SourcePyramid.levelSizes(width: width, height: height) {
            levels.append(Level(width: w, height: h, offset: offset))
            offset += w * h * 4
        }
        self.levelInfo = levels
        self.levels = levels.enumerated().map { i, lv in
            SourceLevel(width: lv.width, height: lv.height, scaleX: Double(1 << i), scaleY: Double(1 << i))
        }
        storage =
            offset <= memoryBudget
            ? PixelStorage(memorySize: offset)
            : try PixelStorage(fileSize: offset, directory: spillDirectory)
        var builder = OverviewCascade(levels: levels, storage: storage)
        var row = [UInt8](repeating: 0, count: width * 4)
        for _ in 0..<height {
            try row.withUnsafeMutableBufferPointer { try reader.readRow(into: $0) }
            try builder.push(row: row, level: 0)
        }
        try reader.finish()
        try builder.flush()
    }

    /// Copies a window of a level (clipped by the caller to the level's extent) into `buffer`,
    /// `w * 4` bytes per row.
    public func readWindow(level: Int, x0: Int, y0: Int, w: Int, h: Int, into buffer: inout [UInt8]) {
        if buffer.count < w * h * 4 { buffer = [UInt8](repeating: 0, count: w * h * 4) }
        buffer.withUnsafeMutableBufferPointer { copyWindow(level: level, x0: x0, y0: y0, w: w, h: h, into: $0.baseAddress!) }
    }

    /// Copies a window of a level (inside its extent) to `out`, `w * 4` bytes per row.
    func copyWindow(level: Int, x0: Int, y0: Int, w: Int, h: Int, into out: UnsafeMutablePointer<UInt8>) {
        let lv = levelInfo[level]
        precondition(x0 >= 0 && y0 >= 0 && x0 + w <= lv.width && y0 + h <= lv.height)
        for r in 0..<h {
            storage.read(
                into: UnsafeMutableRawPointer(out + r * w * 4), count: w * 4,
                at: lv.offset + ((y0 + r) * lv.width + x0) * 4)
        }
    }
}

/// Feeds rows down the pyramid: every two rows of level L make one row of level L+1.
private struct OverviewCascade {
    let levels: [SourcePyramid.Level]
    let storage: PixelStorage
    var rowIndex: [Int]
    var pending: [[UInt8]?]

    init(levels: [SourcePyramid.Level], storage: PixelStorage) {
        self.levels = levels
        self.storage = storage
        rowIndex = Array(repeating: 0, count: levels.count)
        pending = Array(repeating: nil, count: levels.count)
    }

    mutating func push(row: [UInt8], level: Int) throws {
        let lv = levels[level]
        let r = rowIndex[level]
        rowIndex[level] += 1
        try row.withUnsafeBytes { try storage.write($0, at: lv.offset + r * lv.width * 4) }
        guard level + 1 < levels.count else { return }
        if let upper = pending[level] {
            pending[level] = nil
            try push(row: OverviewCascade.downsample(upper, row, width: lv.width), level: level + 1)
        } else {
            pending[level] = row
        }
    }

    /// Pushes the last unpaired row of each level (odd heights) paired with itself.
    mutating func flush() throws {
        for level in 0..<levels.count {
            if let upper = pending[level], level + 1 < levels.count {
                pending[level] = nil
                try push(row: OverviewCascade.downsample(upper, upper, width: levels[level].width), level: level + 1)
            }
        }
    }

    /// One output row from two input rows: alpha-weighted mean of each 2×2 block.
    static func downsample(_ a: [UInt8], _ b: [UInt8], width: Int) -> [UInt8] {
        let outWidth = (width + 1) / 2
        var out = [UInt8](repeating: 0, count: outWidth * 4)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in
                    for i in 0..<outWidth {
                        let x0 = 2 * i * 4
                        let x1 = min(2 * i + 1, width - 1) * 4
                        var sa = 0, sr = 0, sg = 0, sb = 0
                        @inline(__always) func add(_ p: UnsafeBufferPointer<UInt8>, _ x: Int) {
                            let al = Int(p[x + 3])
                            sa += al
                            sr += Int(p[x]) * al
                            sg += Int(p[x + 1]) * al
                            sb += Int(p[x + 2]) * al
                        }
                        add(a, x0)
                        add(a, x1)
                        add(b, x0)
                        add(b, x1)
                        if sa > 0 {
                            o[i * 4] = UInt8((sr + sa / 2) / sa)
                            o[i * 4 + 1] = UInt8((sg + sa / 2) / sa)
                            o[i * 4 + 2] = UInt8((sb + sa / 2) / sa)
                            o[i * 4 + 3] = UInt8((sa + 2) / 4)
                        }
                    }
                }
            }
        }
        return out
    }
}
