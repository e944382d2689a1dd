import CGDAL
import Foundation

/// Process-wide GDAL set-up: drivers registered once, GDAL's own error printing silenced (its
/// messages come back inside typed errors instead), and the block cache sized by the caller.
public enum GDALEnvironment {
    private static let registered: Bool = {
        GDALAllRegister()
        CPLSetErrorHandler(CPLQuietErrorHandler)
        return true
    }()

    /// Registers GDAL's drivers (once per process).
    public static func prepare() { _ = registered }

    /// Sets GDAL's block cache, shared by every open dataset of the process, to `bytes`.
    public static func setCacheBytes(_ bytes: Int) {
        prepare()
        GDALSetCacheMax64(GIntBig(bytes))
    }

    /// GDAL's version, e.g. `3.6.2`.
    public static var version: String {
        prepare()
        return String(cString: GDALVersionInfo("RELEASE_NAME"))
    }

    /// The calling thread's last GDAL error message (GDAL keeps one per thread), or `fallback`.
    static func lastError(or fallback: String) -> String {
        guard let message = CPLGetLastErrorMsg() else { return fallback }
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? fallback : text
    }

    static func resetError() { CPLErrorReset() }
}
