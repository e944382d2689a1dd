import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

@Suite(.computeThreads) struct BundleBuilderTests {
    let dir = TemporaryDirectory()
    static let colorado = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    func options(_ sources: [String], min: Int = 3, max: Int = 6, out: String = "out.mbtiles") -> BuildOptions {
        var o = BuildOptions(sources: sources, name: "Test Region", minZoom: min, maxZoom: max, output: dir.file(out))
        o.threads = 2
        return o
    }

    func decode(_ reader: BundleReader, _ t: TileID) throws -> RGBAImage? {
        guard let data = try reader.tile(t) else { return nil }
        return try PNGDecoder.decode(data)
    }

    @Test func buildsAVerifiableBundle() throws {
        let src = try TestSources.write(
            in: dir, name: "terrain", width: 240, height: 160, bounds: Self.colorado,
            color: TestSources.terrain)
        let report = try BundleBuilder(options: options([src])).build()
        let expected = (3...6).reduce(0) { $0 + TileRange(bounds: Self.colorado, zoom: $1).count }
        #expect(report.tilesConsidered == expected)
        #expect(report.tilesStored == expected, "every tile of the range holds source pixels")
        #expect(dir.contents.sorted() == ["out.mbtiles", "terrain.pgw", "terrain.png"])
        let problems = BundleVerifier.verify(path: dir.file("out.mbtiles")) { _, data in
            (try? PNGDecoder.decode(data)) == nil ? "undecodable" : nil
        }
        #expect(problems.isEmpty, "\(problems)")
        let reader = try BundleReader(path: dir.file("out.mbtiles"))
        var metaProblems = [String]()
        let meta = try reader.metadata(problems: &metaProblems)
        #expect(meta.bounds == Self.colorado && meta.minZoom == 3 && meta.maxZoom == 6 && meta.name == "Test Region")
        #expect(meta.extra["trailmap:sources"] == "terrain.png")
        #expect(meta.extra["trailmap:region"] == "out")
        #expect(try reader.zoomLevels().map(\.zoom) == [3, 4, 5, 6])
    }

    @Test func pngFlagsChooseTheTileEncoding() {
        let byDefault = BuildOptions.encoding(level: nil, deflater: .libdeflate, search: false)
        #expect(byDefault.adaptiveLevels == nil && byDefault.compressionLevel == 7 && byDefault.effort == .fast)
        #expect(
            BuildOptions(sources: ["a.png"], name: "A", minZoom: 0, maxZoom: 1, output: "a.mbtiles")
                .encoding.compressionLevel == BuildEffort.balanced.level)
        // Efforts: one level each, `small` the per-tile levels.
        #expect(
            BuildEffort.allCases.map {
                BuildOptions.encoding(effort: $0, level: nil, deflater: .libdeflate, search: false).compressionLevel
            }
                == [6, 7, 8, 12])
        let small = BuildOptions.encoding(effort: .small, level: nil, deflater: .libdeflate, search: false)
        #expect(small.adaptiveLevels == BuildOptions.defaultAdaptiveLevels)
        #expect(BuildOptions.encoding(effort: .small, level: 9, deflater: .libdeflate, search: false).adaptiveLevels == nil)
        // An explicit level, zlib or the search: one setting for every tile.
        let level = BuildOptions.encoding(level: 8, deflater: .libdeflate, search: false)
        #expect(level.adaptiveLevels == nil && level.compressionLevel == 8)
        let zlib = BuildOptions.encoding(level: nil, deflater: .zlib, search: false)
        #expect(zlib.adaptiveLevels == nil && zlib.compressionLevel == 6 && zlib.deflater == .zlib)
        let search = BuildOptions.encoding(level: nil, deflater: .libdeflate, search: true)
        #expect(search.adaptiveLevels == nil && search.effort == .best)
    }

    @Test func threadsFitInTheMemoryLimit() {
        var o = BuildOptions(sources: ["a.png"], name: "A", minZoom: 0, maxZoom: 1, output: "a.mbtiles")
        o.threads = 64
        o.memoryLimit = 512 << 20
        #expect(o.renderThreads == (256 << 20) / o.bytesPerThread && o.renderThreads < 64)
        #expect(o.renderThreads * o.bytesPerThread <= o.memoryLimit / 2)
        o.memoryLimit = 64 << 20
        #expect(o.renderThreads == 2)
        o.tileSize = 512
        #expect(o.renderThreads == 1, "never fewer than one")
        o.memoryLimit = 8 << 30
        o.threads = 3
        #expect(o.renderThreads == 3, "the asked-for count when memory allows")
    }

    @Test func lowerZoomLevelsAgreeWithHigherOnes() throws {
        let src = try TestSources.write(
            in: dir, name: "terrain", width: 600, height: 400, bounds: Self.colorado,
            color: TestSources.terrain)
        _ = try BundleBuilder(options: options([src], min: 6, max: 7)).build()
        let reader = try BundleReader(path: dir.file("out.mbtiles"))
        let parent = WebMercator.tile(lon: -105.5, lat: 39, zoom: 6)
        let tile = try #require(try decode(reader, parent))
        // Average the four children down to one tile and compare.
        var merged = RGBAImage(width: 256, height: 256)
        for (k, child) in parent.children.enumerated() {
            let c = try #require(try decode(reader, child))
            let ox = (k % 2) * 128, oy = (k / 2) * 128
            for j in 0..<128 {
                for i in 0..<128 {
                    for ch in 0..<4 {
                        var s = 0
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            s += Int(c.pixels[((2 * j + dy) * 256 + 2 * i + dx) * 4 + ch])
                        }
                        merged.pixels[((oy + j) * 256 + ox + i) * 4 + ch] = UInt8((s + 2) / 4)
                    }
                }
            }
        }
        #expect(psnr(tile, merged) > 30)
    }

    @Test func storesIdenticalTilesOnceAndSkipsEmptyOnes() throws {
        // A uniform green block, and a far-away small red one: the union's range is mostly empty.
        let green = try TestSources.write(
            in: dir, name: "green", width: 64, height: 64,
            bounds: GeoBounds(west: -108, south: 37, east: -102, north: 41)
        ) { _, _ in (30, 160, 60, 255) }
        let red = try TestSources.write(
            in: dir, name: "red", width: 8, height: 8,
            bounds: GeoBounds(west: -90, south: 30, east: -89.5, north: 30.5)
        ) { _, _ in (200, 0, 0, 255) }
        let report = try BundleBuilder(options: options([green, red], min: 8, max: 9)).build()
        #expect(report.tilesStored < report.tilesConsidered)
        #expect(report.uniqueImages < report.tilesStored / 2, "inner green tiles are identical")
        let reader = try BundleReader(path: dir.file("out.mbtiles"))
        #expect(try reader.tile(WebMercator.tile(lon: -95, lat: 35, zoom: 9)) == nil, "nothing stored between the sources")
        let inner = try #require(try decode(reader, WebMercator.tile(lon: -105, lat: 39, zoom: 9)))
        #expect(Array(inner.pixels[0..<4]) == [30, 160, 60, 255])
    }

    @Test func writesNothingWhenASourceIsTruncated() throws {
        let src = try TestSources.write(
            in: dir, name: "terrain", width: 300, height: 200, bounds: Self.colorado,
            color: TestSources.terrain)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: src))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: src))
        #expect { try BundleBuilder(options: options([src])).build() } throws: { error in
            guard case let .sourceUnreadable(path, _) = error as? BuildError else { return false }
            return path == src && "\(error)".contains(src)
        }
        #expect(!dir.contents.contains { $0.hasSuffix(".mbtiles") || $0.hasSuffix(".building") })
    }

    enum Bad: String, CaseIterable { case missing, empty, notPNG, noWorldFile, polar, zoomOrder, zoom23, noFolder }

    @Test(arguments: Bad.allCases)
    func rejectsBadInput(_ bad: Bad) throws {
        let good = try TestSources.write(in: dir, name: "good", width: 16, height: 16, bounds: Self.colorado) { _, _ in (1, 2, 3, 255) }
        var o = options([good])
        var expectInMessage = good
        switch bad {
        case .missing:
            o.sources = [dir.file("nope.png")]
            expectInMessage = "nope.png"
        case .empty:
            _ = FileManager.default.createFile(atPath: dir.file("empty.png"), contents: Data())
            o.sources = [good, dir.file("empty.png")]
            expectInMessage = "empty.png"
        case .notPNG:
            _ = FileManager.default.createFile(atPath: dir.file("text.png"), contents: Data("hello, I am text".utf8))
            o.sources = [dir.file("text.png")]
            expectInMessage = "text.png"
        case .noWorldFile:
            try FileManager.default.removeItem(atPath: dir.file("good.pgw"))
            expectInMessage = "world file"
        case .polar:
            o.sources = [
                try TestSources.write(
                    in: dir, name: "polar", width: 8, height: 8,
                    bounds: GeoBounds(west: 0, south: 86, east: 10, north: 89)
                ) { _, _ in (1, 1, 1, 255) }
            ]
            expectInMessage = "Mercator"
        case .zoomOrder:
            o.minZoom = 7
            o.maxZoom = 5
            expectInMessage = "minzoom 7"
        case .zoom23:
            o.maxZoom = 23
            expectInMessage = "23"
        case .noFolder:
            o.output = dir.file("no/such/folder/out.mbtiles")
            expectInMessage = "does not exist"
        }
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            "\(error)".contains(expectInMessage)
        }
        #expect(!dir.contents.contains { $0.hasSuffix(".mbtiles") || $0.hasSuffix(".building") })
    }

    /// A world file with rotation terms is no longer refused: GDAL reads it and the warper follows
    /// the rotation (the rotated source's corner lands where the world file puts it).
    @Test func rotatedWorldFilesBuild() throws {
        let src = try TestSources.write(in: dir, name: "rot", width: 64, height: 64, bounds: Self.colorado) { _, _ in (200, 80, 40, 255) }
        try "0.1\n0.01\n0\n-0.1\n-110\n42\n".write(toFile: dir.file("rot.pgw"), atomically: false, encoding: .utf8)
        let report = try BundleBuilder(options: options([src], min: 3, max: 6)).build()
        #expect(report.tilesStored > 0)
        let reader = try BundleReader(path: dir.file("out.mbtiles"))
        var problems = [String]()
        let meta = try reader.metadata(problems: &problems)
        // 64 rows of 0.01 degree of rotation push the east edge 0.64 degree north: north = 42.05 + 0.64.
        #expect(abs(meta.bounds.north - 42.69) < 0.02 && abs(meta.bounds.west - -110.05) < 0.02, "\(meta.bounds)")
    }
}
