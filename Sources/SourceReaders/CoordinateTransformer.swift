import CGDAL

/// Transforms coordinates between two CRSs through PROJ (GDAL's OGRCoordinateTransformation),
/// longitude/easting first on both sides. One per thread: PROJ transformation objects are not
/// safe to share.
public final class CoordinateTransformer {
    private let handle: OGRCoordinateTransformationH
    private var success: [Int32] = []

    /// `path`: the file whose coordinates these are, named in errors (default: the source CRS's name).
    public init(from source: SpatialReference, to target: SpatialReference, path: String? = nil) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        guard let s = source.makeHandle() else { throw .badCRS(input: source.name, reason: "cannot be read back") }
        defer { OSRDestroySpatialReference(s) }
        guard let t = target.makeHandle() else { throw .badCRS(input: target.name, reason: "cannot be read back") }
        defer { OSRDestroySpatialReference(t) }
        GDALEnvironment.resetError()
        guard let h = OCTNewCoordinateTransformation(s, t) else {
            let reason = GDALEnvironment.lastError(or: "PROJ has no transformation to \(target.name)")
            if OSRIsLocal(s) != 0 || OSRIsLocal(t) != 0 { throw .localCRS(path: path ?? source.name, reason: reason) }
            throw .transformFailed(path: path ?? source.name, reason: reason)
        }
        handle = h
    }

    deinit { OCTDestroyCoordinateTransformation(handle) }

    /// Transforms `count` points of `xs`/`ys` in place; a point that cannot be transformed becomes NaN.
    public func transform(xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, count: Int) {
        guard count > 0 else { return }
        if success.count < count { success = [Int32](repeating: 0, count: count) }
        success.withUnsafeMutableBufferPointer { ok in
            _ = OCTTransformEx(handle, Int32(count), xs, ys, nil, ok.baseAddress)
            for i in 0..<count where ok[i] == 0 || !xs[i].isFinite || !ys[i].isFinite {
                xs[i] = .nan
                ys[i] = .nan
            }
        }
    }

    /// Transforms arrays in place (NaN where a point fails).
    public func transform(xs: inout [Double], ys: inout [Double]) {
        precondition(xs.count == ys.count)
        let n = xs.count
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in
                transform(xs: x.baseAddress!, ys: y.baseAddress!, count: n)
            }
        }
    }
}
