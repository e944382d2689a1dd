import Foundation
import TrailMapAPI

/// Checks on what a server sends before it becomes a file name, a number or a delay: a
/// malicious or intercepted server is input like any other.
enum ServerInput {
    /// Longest id or name taken from a server.
    static let maxNameLength = 128

    /// True for a product id, area id, quote id or file name that is safe as one path component:
    /// 1...128 characters of `A-Z a-z 0-9 . _ -`, not starting with a dot (so never `.` or `..`,
    /// never a hidden file beside the installed bundles).
    static func isSafeName(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= maxNameLength, s.utf8.first != UInt8(ascii: ".") else { return false }
        return s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// Throws `unsafeName` unless `value` is a safe name (`isSafeName`).
    static func name(_ value: String, _ field: String) throws(RegionManagerError) {
        guard isSafeName(value) else { throw .unsafeName(field: field, value: value) }
    }

    static func nonNegative(_ value: Int64, _ field: String) throws(RegionManagerError) {
        guard value >= 0 else { throw .invalidResponse("a negative \(field) (\(value))") }
    }

    /// A product as listed or shown: its id and tileset name (its file name) are safe names, its size and version not negative.
    static func check(_ p: ProductSummary) throws(RegionManagerError) {
        try name(p.productId, "product id")
        if !p.tileset.isEmpty { try name(p.tileset, "tileset name") }
        try nonNegative(p.size, "size of \(p.productId)")
        try nonNegative(Int64(p.version), "version of \(p.productId)")
        if let cap = p.area?.maxBytes { try nonNegative(cap, "area size cap of \(p.productId)") }
    }

    /// An update offer: its product id, its sizes and the versions of its patches.
    static func check(_ u: ProductUpdate) throws(RegionManagerError) {
        try name(u.productId, "product id")
        try nonNegative(u.fullSize, "bundle size of \(u.productId)")
        try nonNegative(u.patchSize, "patch size of \(u.productId)")
        for link in u.patches {
            try nonNegative(link.size, "patch size of \(u.productId)")
            try nonNegative(Int64(link.fromVersion), "patch version of \(u.productId)")
            try nonNegative(Int64(link.toVersion), "patch version of \(u.productId)")
        }
    }

    /// A `Retry-After` in seconds (the HTTP-date form is ignored): a finite, non-negative number,
    /// at most a day (the retry policy caps it further); nil for anything else (`inf`, `1e30`, `-1`, text).
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 else {
            return nil
        }
        return .milliseconds(Int64((min(seconds, 86_400) * 1000).rounded()))
    }

    /// A distance in kilometres a server sent: finite, not negative, at most `limit`; else nil.
    static func kilometres(_ value: Double?, limit: Double) -> Double? {
        guard let value, value.isFinite, value >= 0 else { return nil }
        return min(value, limit)
    }
}
