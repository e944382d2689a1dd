import CGDAL

/// Converts between a raster's pixel/line positions (edges at integers) and its CRS coordinates,
/// both ways, in place: the geotransform, GDAL's transformer fitted to ground control points
/// (the polynomial or thin-plate spline gdalwarp uses), or its RPC transformer. One per thread.
public final class PixelGeolocator {
    private enum Kind {
        case affine(GeoTransform, inverse: GeoTransform)
        case polynomial(UnsafeMutableRawPointer)
        case spline(UnsafeMutableRawPointer)
        case rational(UnsafeMutableRawPointer)
    }

    private let kind: Kind
    private var success: [Int32] = []

    /// `path` names the raster in errors.
    public init(_ georeferencing: Georeferencing, path: String) throws(SourceReaderError) {
        switch georeferencing {
        case let .affine(gt):
            guard let inverse = gt.inverse else { throw .degenerateGeoTransform(path: path) }
            kind = .affine(gt, inverse: inverse)
        case let .groundControlPoints(points, method):
            GDALEnvironment.prepare()
            guard points.count >= method.minimumPoints else {
                throw .tooFewGroundControlPoints(path: path, count: points.count, fit: method)
            }
            var gcps = points.map { p in
                GDAL_GCP(pszId: nil, pszInfo: nil, dfGCPPixel: p.pixel, dfGCPLine: p.line, dfGCPX: p.x, dfGCPY: p.y, dfGCPZ: 0)
            }
            GDALEnvironment.resetError()
            let handle: UnsafeMutableRawPointer? = gcps.withUnsafeMutableBufferPointer { g in
                if let order = method.polynomialOrder {
                    return GDALCreateGCPTransformer(Int32(g.count), g.baseAddress, order, 0)
                }
                return GDALCreateTPSTransformer(Int32(g.count), g.baseAddress, 0)
            }
            guard let handle else {
                throw .badGroundControlPoints(
                    path: path,
                    reason: GDALEnvironment.lastError(
                        or:
                            """
                            GDAL cannot fit a \(method == .tps ? "thin-plate spline" : "polynomial") to them (are they in a line, or \
                            repeated?)
                            """
                    ))
            }
            kind = method == .tps ? .spline(handle) : .polynomial(handle)
        case let .rationalPolynomials(items):
            GDALEnvironment.prepare()
            kind = .rational(try Self.rpcTransformer(items, path: path))
        }
    }

    /// GDAL's RPC transformer for `items` (the "RPC" metadata domain) at the scene's `HEIGHT_OFF`;
    /// pixel positions found back from coordinates to within 0.1 pixel, as gdalwarp's default.
    private static func rpcTransformer(_ items: [String], path: String) throws(SourceReaderError) -> UnsafeMutableRawPointer {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        for item in items { list = CSLAddString(list, item) }
        defer { CSLDestroy(list) }
        var info = GDALRPCInfoV2()
        GDALEnvironment.resetError()
        guard GDALExtractRPCInfoV2(list, &info) != 0 else {
            throw .badRationalPolynomials(path: path, reason: GDALEnvironment.lastError(or: "the RPC metadata is incomplete"))
        }
        var options: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        options = CSLSetNameValue(options, "RPC_HEIGHT", String(info.dfHEIGHT_OFF))
        defer { CSLDestroy(options) }
        guard let handle = GDALCreateRPCTransformerV2(&info, 0, 0.1, options) else {
            throw .badRationalPolynomials(path: path, reason: GDALEnvironment.lastError(or: "GDAL cannot make a transformer of them"))
        }
        return handle
    }

    deinit {
        switch kind {
        case .affine: break
        case let .polynomial(h): GDALDestroyGCPTransformer(h)
        case let .spline(h): GDALDestroyTPSTransformer(h)
        case let .rational(h): GDALDestroyRPCTransformer(h)
        }
    }

    /// Pixel/line positions → CRS coordinates, in place (NaN where a point fails).
    public func toCRS(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int) {
        run(xs: xs, ys: ys, count: count, toPixels: false)
    }

    /// CRS coordinates → pixel/line positions, in place (NaN where a point fails).
    public func toPixels(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int) {
        run(xs: xs, ys: ys, count: count, toPixels: true)
    }

    /// Arrays in place, CRS → pixel.
    public func toPixels(xs: inout [Double], ys: inout [Double]) {
        precondition(xs.count == ys.count)
        let n = xs.count
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in toPixels(xs: x.baseAddress!, ys: y.baseAddress!, count: n) }
        }
    }

    /// Arrays in place, pixel → CRS.
    public func toCRS(xs: inout [Double], ys: inout [Double]) {
        precondition(xs.count == ys.count)
        let n = xs.count
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in toCRS(xs: x.baseAddress!, ys: y.baseAddress!, count: n) }
        }
    }

    private func run(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int, toPixels: Bool) {
        guard count > 0 else { return }
        let transform: GDALTransformerFunc
        let handle: UnsafeMutableRawPointer
        switch kind {
        case let .affine(gt, inverse):
            let t = toPixels ? inverse : gt
            for i in 0..<count where xs[i].isFinite && ys[i].isFinite {
                (xs[i], ys[i]) = t.apply(col: xs[i], row: ys[i])
            }
            return
        case let .polynomial(h): (transform, handle) = (GDALGCPTransform, h)
        case let .spline(h): (transform, handle) = (GDALTPSTransform, h)
        case let .rational(h): (transform, handle) = (GDALRPCTransform, h)
        }
        if success.count < count { success = [Int32](repeating: 0, count: count) }
        var zs = [Double](repeating: 0, count: count)
        success.withUnsafeMutableBufferPointer { ok in
            zs.withUnsafeMutableBufferPointer { z in
                _ = transform(handle, toPixels ? 1 : 0, Int32(count), xs, ys, z.baseAddress, ok.baseAddress)
            }
            for i in 0..<count where ok[i] == 0 || !xs[i].isFinite || !ys[i].isFinite {
                xs[i] = .nan
                ys[i] = .nan
            }
        }
    }
}
