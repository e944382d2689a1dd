import Essentials
import Foundation

/// gzip for response bodies: compression is Essentials' `Gzip.compress`.
extension Gzip {
    /// Whether an Accept-Encoding header value allows gzip (q > 0).
    static func accepted(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = fields.first, coding == "gzip" || coding == "*" else { continue }
            let q = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return q > 0
        }
        return false
    }
}
