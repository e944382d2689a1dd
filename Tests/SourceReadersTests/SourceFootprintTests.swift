import Foundation
import SourceReaders
import Testing
import TrailMapTestSupport
import TileGeometry

/// `SourceFootprint`: where a raster lies, from its CRS and geotransform alone (no file). The
/// expected figures are the rasters' corners (or one interior point) transformed by PROJ here,
/// apart from the footprint's grid.
@Suite(.computeThreads) struct SourceFootprintTests {
    /// A north-up geotransform: top-left corner (`west`, `north`) in the CRS, square pixels of `size`.
    static func northUp(west: Double, north: Double, size: Double) -> Georeferencing {
        .affine(GeoTransform(c0: west, c1: size, c2: 0, c3: north, c4: 0, c5: -size))
    }

    /// A point of `crs` in longitude/latitude, through PROJ.
    static func degrees(_ x: Double, _ y: Double, from crs: SpatialReference) throws -> (lon: Double, lat: Double) {
        var xs = [x], ys = [y]
        try CoordinateTransformer(from: crs, to: .wgs84).transform(xs: &xs, ys: &ys)
        return (xs[0], ys[0])
    }

    /// A sheet in UTM zone 13N centred on the zone's central meridian: edges of constant easting
    /// and northing, so its west and east are the top corners' longitudes, its south the bottom
    /// corners' lower latitude, and its north the top edge's latitude on the central meridian (an
    /// interior point of the grid, above both top corners).
    @Test func aUTMSheetReachesItsTopEdgesMiddle() throws {
        let utm = try SpatialReference(userInput: "EPSG:32613")
        // Eastings 450-550 km (the central meridian at 500 km is the grid's middle column), northings 4400-4500 km.
        let f = try SourceFootprint(
            path: "utm.tif", width: 1000, height: 1000, crs: utm,
            georeferencing: Self.northUp(west: 450_000, north: 4_500_000, size: 100))
        let topLeft = try Self.degrees(450_000, 4_500_000, from: utm), topRight = try Self.degrees(550_000, 4_500_000, from: utm)
        let bottomLeft = try Self.degrees(450_000, 4_400_000, from: utm)
        let topMiddle = try Self.degrees(500_000, 4_500_000, from: utm)
        #expect(abs(f.bounds.west - topLeft.lon) < 1e-9 && abs(f.bounds.east - topRight.lon) < 1e-9, "\(f.bounds)")
        #expect(abs(f.bounds.south - bottomLeft.lat) < 1e-9, "\(f.bounds)")
        #expect(abs(f.bounds.north - topMiddle.lat) < 1e-9 && f.bounds.north > topLeft.lat, "\(f.bounds)")
        #expect(f.parts == [f.bounds] && f.longitudeWindow == nil)
        #expect(f.mercator == f.bounds.mercator)
        // 100 m pixels, about 1/cos(latitude) times longer in Web Mercator metres.
        let expected = 100 / cos(f.bounds.center.lat * .pi / 180)
        #expect(abs(try #require(f.pixelSize) / expected - 1) < 0.02, "\(String(describing: f.pixelSize)) vs \(expected)")
    }

    /// A sheet in UTM zone 60N whose lower-left corner lies east of 180° and the rest west of it:
    /// two parts that meet at the antimeridian, bounds over every longitude.
    @Test func aUTMSheetAcrossTheAntimeridianIsTwoParts() throws {
        let utm = try SpatialReference(userInput: "EPSG:32660")
        let f = try SourceFootprint(
            path: "zone60.tif", width: 500, height: 600, crs: utm,
            georeferencing: Self.northUp(west: 700_000, north: 6_000_000, size: 200))
        let bottomLeft = try Self.degrees(700_000, 5_880_000, from: utm), topRight = try Self.degrees(800_000, 6_000_000, from: utm)
        let topLeft = try Self.degrees(700_000, 6_000_000, from: utm), bottomRight = try Self.degrees(800_000, 5_880_000, from: utm)
        #expect(bottomLeft.lon > 0 && topLeft.lon < 0, "the sheet crosses 180° along its left edge")
        #expect(f.bounds.west == -180 && f.bounds.east == 180)
        #expect(abs(f.bounds.south - bottomRight.lat) < 1e-9 && abs(f.bounds.north - topLeft.lat) < 1e-9, "\(f.bounds)")
        try #require(f.parts.count == 2, "\(f.parts)")
        #expect(abs(f.parts[0].west - bottomLeft.lon) < 1e-9 && f.parts[0].east == 180, "\(f.parts)")
        #expect(f.parts[1].west == -180 && abs(f.parts[1].east - topRight.lon) < 1e-9, "\(f.parts)")
        #expect(f.parts.allSatisfy { $0.south == f.bounds.south && $0.north == f.bounds.north })
        #expect(f.longitudeWindow == nil)
        // The pixel size is measured the short way across 180°: about 200 m / cos(latitude), not half a world.
        let expected = 200 / cos(f.bounds.center.lat * .pi / 180)
        #expect(abs(try #require(f.pixelSize) / expected - 1) < 0.03, "\(String(describing: f.pixelSize)) vs \(expected)")
    }

    /// A grid in degrees from 170° to 200°: wrapped into two parts, with its tiles mapped through
    /// a window at its middle longitude.
    @Test func degreesPast180GetAWindow() throws {
        let f = try SourceFootprint(
            path: "pacific.tif", width: 240, height: 160, crs: .wgs84,
            georeferencing: Self.northUp(west: 170, north: 10, size: 0.125))
        #expect(f.longitudeWindow == 185)
        #expect(f.bounds == GeoBounds(west: -180, south: -10, east: 180, north: 10))
        #expect(
            f.parts == [GeoBounds(west: 170, south: -10, east: 180, north: 10), GeoBounds(west: -180, south: -10, east: -160, north: 10)])
    }

    /// A polar stereographic raster around the North Pole: every longitude, up to 90° (which no
    /// grid point reaches), down to its corners' latitude; Web Mercator clips it at 85.05°.
    @Test func aRasterAroundThePoleReachesIt() throws {
        let polar = try SpatialReference(userInput: "EPSG:3413")
        let f = try SourceFootprint(
            path: "arctic.tif", width: 100, height: 100, crs: polar,
            georeferencing: Self.northUp(west: -600_000, north: 600_000, size: 12_000))
        let corner = try Self.degrees(600_000, 600_000, from: polar)
        #expect(f.bounds.west == -180 && f.bounds.east == 180 && f.bounds.north == 90, "\(f.bounds)")
        #expect(abs(f.bounds.south - corner.lat) < 1e-6, "\(f.bounds) vs \(corner)")
        #expect(f.parts == [f.bounds])
        #expect(abs(f.mercator.maxY - WebMercator.project(lon: 0, lat: WebMercator.maxLatitude).y) < 1e-6)
    }

    /// A quadrant whose corner is the pole (a pixel window of the same raster) only touches it:
    /// it keeps its 90° of longitudes (EPSG:3413's meridian -45° and the one 90° east of it), the
    /// pole's arbitrary longitude not counted.
    @Test func aQuadrantTouchingThePoleKeepsItsLongitudes() throws {
        let polar = try SpatialReference(userInput: "EPSG:3413")
        let f = try SourceFootprint(
            path: "arctic.tif", width: 100, height: 100, crs: polar,
            georeferencing: Self.northUp(west: -600_000, north: 600_000, size: 12_000),
            window: (x0: 50, y0: 50, x1: 100, y1: 100))
        #expect(abs(f.bounds.west - -45) < 1e-6 && abs(f.bounds.east - 45) < 1e-6, "\(f.bounds)")
        #expect(abs(f.bounds.north - 90) < 1e-6, "\(f.bounds)")
        #expect(f.parts == [f.bounds])
    }

    /// A raster wholly north of 85.05° is outside the Web Mercator range: an error naming it and its extent.
    @Test func aRasterBeyondMercatorIsRefused() {
        do {
            let f = try SourceFootprint(
                path: "cap.tif", width: 80, height: 24, crs: .wgs84,
                georeferencing: Self.northUp(west: 0, north: 89, size: 0.125))
            Issue.record("a footprint: \(f)")
        } catch {
            #expect(error == .outsideMercator(path: "cap.tif", bounds: GeoBounds(west: 0, south: 86, east: 10, north: 89)), "\(error)")
        }
    }
}
