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

    /// GDAL warnings gathered by `collectingWarnings`.
    private final class Warnings { var messages: [String] = [] }

    /// Runs `body` and returns what it returns with the warnings GDAL raised on this thread
    /// meanwhile (none are collected unless `collecting`).
    static func collectingWarnings<T>(when collecting: Bool, _ body: () -> T) -> (T, [String]) {
        guard collecting else { return (body(), []) }
        let warnings = Unmanaged.passRetained(Warnings())
        CPLPushErrorHandlerEx(
            { level, _, message in
                guard level == CE_Warning, let message, let data = CPLGetErrorHandlerUserData() else { return }
                Unmanaged<Warnings>.fromOpaque(data).takeUnretainedValue().messages.append(String(cString: message))
            }, warnings.toOpaque())
        let value = body()
        CPLPopErrorHandler()
        let messages = warnings.takeRetainedValue().messages
        return (value, messages)
    }
}
