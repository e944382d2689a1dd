import Foundation

/// Runs GDAL's command-line tools (Debian's gdal-bin) to make real test rasters.
public enum GDALTools {
    public struct Failure: Error, CustomStringConvertible {
        public let command: String
        public let output: String
        public var description: String { "\(command) failed: \(output)" }
    }

    /// Runs `tool args...` (found on the PATH); throws with its output when it exits non-zero.
    @discardableResult
    public static func run(_ tool: String, _ args: [String]) throws -> String {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else { throw Failure(command: ([tool] + args).joined(separator: " "), output: output) }
        return output
    }

    /// `gdal_translate -q [args] src dst`.
    public static func translate(_ src: String, _ dst: String, _ args: [String] = []) throws {
        try run("gdal_translate", ["-q"] + args + [src, dst])
    }

    /// `gdalwarp -q -overwrite [args] src dst`.
    public static func warp(_ src: String, _ dst: String, _ args: [String]) throws {
        try run("gdalwarp", ["-q", "-overwrite"] + args + [src, dst])
    }
}

/// Colour fields for test sources.
public enum TestPatterns {
    /// Two colours in square cells of `cell` pixels; no channel is dark, so a dark pixel in a
    /// result can only come from nodata painted as colour.
    public static func checkerboard(cell: Int) -> (Int, Int) -> (UInt8, UInt8, UInt8, UInt8) {
        { c, r in ((c / cell + r / cell) % 2 == 0) ? (200, 70, 40, 255) : (40, 110, 220, 255) }
    }
}
