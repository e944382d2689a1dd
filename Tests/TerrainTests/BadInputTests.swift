import Foundation
import Raster
import Terrain
import TileGeometry
import TileStore
import Testing
import TrailMapTestSupport

/// Lines and terrain bundles that must be refused with a structured error.
@Suite(.computeThreads) struct BadInputTests {
    let sampler = try! TerrainSampler(paths: [TerrainScene.utmRamp.bundle])
    let a = GeoPoint(lat: 46.03, lon: 9.0), b = GeoPoint(lat: 46.04, lon: 9.0)

    @Test func lineShapes() {
        #expect(throws: ProfileError.tooFewPoints(count: 1)) { try ProfileBuilder.profile([a], source: sampler) }
        #expect(throws: ProfileError.tooFewPoints(count: 0)) { try ProfileBuilder.profile([], source: sampler) }
        #expect(throws: ProfileError.tooManyPoints(count: 6, limit: 5)) {
            try ProfileBuilder.profile(Array(repeating: a, count: 6), options: ProfileOptions(maxPoints: 5), source: sampler)
        }
        // Ten million points are refused from their count alone.
        #expect(throws: ProfileError.tooManyPoints(count: 10_000_000, limit: 100_000)) {
            try LineValidation.checkCount(10_000_000, limit: ProfileOptions().maxPoints)
        }
        #expect(throws: ProfileError.latitudeOutOfRange(index: 1, value: 91)) {
            try ProfileBuilder.profile([a, GeoPoint(lat: 91, lon: 9)], source: sampler)
        }
        #expect(throws: ProfileError.longitudeOutOfRange(index: 0, value: -180.5)) {
            try ProfileBuilder.profile([GeoPoint(lat: 46, lon: -180.5), a], source: sampler)
        }
        #expect(throws: ProfileError.badSpacing(0)) {
            try ProfileBuilder.profile([a, b], options: ProfileOptions(spacing: 0), source: sampler)
        }
        #expect(throws: ProfileError.badSpacing(-3)) {
            try ProfileBuilder.profile([a, b], options: ProfileOptions(spacing: -3), source: sampler)
        }
    }

    /// A line too long for the sample cap gets a wider spacing, not more samples.
    @Test func spacingWidensToTheSampleCap() throws {
        let p = try ProfileBuilder.profile([a, b], options: ProfileOptions(spacing: 1, maxSamples: 50), source: sampler)
        #expect(p.samples.count <= 50)
        #expect(p.spacing > 1)
    }

    @Test func bundlesWithoutOrWithAnUnknownEncoding() throws {
        let dir = TemporaryDirectory()
        let tile = try PNGEncoder.encode(RGBAImage(width: 256, height: 256, fill: (128, 0, 0, 255)))
        let t = TileID(z: 13, x: 4300, y: 2900)!
        var meta = BundleMetadata(name: "x", bounds: t.geoBounds, minZoom: 13, maxZoom: 13)
        try TestBundle.write([t: tile], to: dir.file("plain.mbtiles"), metadata: meta)
        #expect(throws: ElevationError.unknownEncoding(path: dir.file("plain.mbtiles"), found: nil)) {
            try TerrainBundle(path: dir.file("plain.mbtiles"))
        }
        meta.extra["encoding"] = "lerc"
        try TestBundle.write([t: tile], to: dir.file("lerc.mbtiles"), metadata: meta)
        #expect(throws: ElevationError.unknownEncoding(path: dir.file("lerc.mbtiles"), found: "lerc")) {
            try TerrainBundle(path: dir.file("lerc.mbtiles"))
        }
        #expect(throws: ElevationError.self) { try TerrainBundle(path: dir.file("missing.mbtiles")) }
    }

    /// A tile of the wrong size or not an image is an error naming the bundle and tile, when read.
    @Test func badTiles() throws {
        let dir = TemporaryDirectory()
        let t = TileID(z: 13, x: 4300, y: 2900)!
        var meta = BundleMetadata(name: "x", bounds: t.geoBounds, minZoom: 13, maxZoom: 13)
        meta.extra["encoding"] = "terrarium"
        let centre = t.geoBounds
        let point = GeoPoint(lat: (centre.south + centre.north) / 2, lon: (centre.west + centre.east) / 2)
        try TestBundle.write(
            [t: try PNGEncoder.encode(RGBAImage(width: 300, height: 300, fill: (128, 0, 0, 255)))],
            to: dir.file("odd.mbtiles"), metadata: meta)
        let error = #expect(throws: ElevationError.self) { try TerrainSampler(paths: [dir.file("odd.mbtiles")]).elevation(at: point) }
        guard case let .badTile(path, tile, _)? = error else {
            Issue.record("not a bad tile: \(String(describing: error))")
            return
        }
        #expect(path == dir.file("odd.mbtiles") && tile == "13/4300/2900")
        try TestBundle.write([t: Array("not an image".utf8)], to: dir.file("junk.mbtiles"), metadata: meta)
        #expect(throws: ElevationError.self) { try TerrainSampler(paths: [dir.file("junk.mbtiles")]).elevation(at: point) }
        // A well-formed tile decodes: Terrarium (128, 0, 0) is 0 m.
        try TestBundle.write(
            [t: try PNGEncoder.encode(RGBAImage(width: 256, height: 256, fill: (128, 0, 0, 255)))],
            to: dir.file("flat.mbtiles"), metadata: meta)
        #expect(try TerrainSampler(paths: [dir.file("flat.mbtiles")]).elevation(at: point) == 0)
    }
}
