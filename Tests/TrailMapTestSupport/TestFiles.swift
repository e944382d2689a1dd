import Foundation
import Synchronization
import Raster
import TileGeometry

/// A temporary folder removed when the value is released, or at the latest when the test process
/// exits (a suite's shared fixtures live as long as the process, and their folders stayed behind).
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("trailmap-test-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        LiveFolders.add(path)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        LiveFolders.remove(path)
    }

    /// A path inside the folder.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Names of the files in the folder, hidden ones included.
    public var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// Makes source images for tests.
public enum TestSources {
    /// Writes `NAME.png` and `NAME.pgw` (EPSG:4326) covering `bounds`, each pixel coloured by `color(col, row)`.
    @discardableResult
    public static func write(
        in dir: TemporaryDirectory, name: String, width: Int, height: Int, bounds: GeoBounds,
        color: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)
    ) throws -> String {
        var image = RGBAImage(width: width, height: height)
        for r in 0..<height {
            for c in 0..<width {
                let (red, g, b, a) = color(c, r)
                let p = (r * width + c) * 4
                image.pixels[p] = red
                image.pixels[p + 1] = g
                image.pixels[p + 2] = b
                image.pixels[p + 3] = a
            }
        }
        let png = dir.file(name + ".png")
        try Data(try PNGEncoder.encode(image, options: PNGEncodingOptions(effort: .fast))).write(to: URL(fileURLWithPath: png))
        let g = PixelGrid(
            crs: .epsg4326, bounds: (bounds.west, bounds.south, bounds.east, bounds.north),
            width: width, height: height)
        try WorldFile.format(g).write(toFile: dir.file(name + ".pgw"), atomically: false, encoding: .utf8)
        return png
    }

    /// A smooth, photo-like colour field (so tiles do not collapse into palettes).
    public static func terrain(_ c: Int, _ r: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let x = Double(c), y = Double(r)
        let v = sin(x / 7) * 40 + cos(y / 5) * 40 + sin((x + y) / 11) * 30
        return (
            UInt8(clamping: Int(120 + v)), UInt8(clamping: Int(110 + v * 0.8 + x.truncatingRemainder(dividingBy: 13))),
            UInt8(clamping: Int(90 + v * 0.5)), 255
        )
    }
}

/// Peak signal-to-noise ratio between two same-size images, over RGBA; infinity when identical.
public func psnr(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    precondition(a.pixels.count == b.pixels.count)
    var sum = 0.0
    for i in 0..<a.pixels.count {
        let d = Double(a.pixels[i]) - Double(b.pixels[i])
        sum += d * d
    }
    let mse = sum / Double(a.pixels.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// The folders of `TemporaryDirectory` values not yet released, removed at the process's exit.
private enum LiveFolders {
    static let paths = Mutex<Set<String>>([])
    /// Registers the exit handler once, when the first folder is made.
    static let handler: Void = { atexit { LiveFolders.removeAll() } }()

    static func add(_ path: String) {
        _ = handler
        paths.withLock { _ = $0.insert(path) }
    }

    static func remove(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    static func removeAll() {
        for path in paths.withLock({ p in
            defer { p = [] }; return p
        }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
