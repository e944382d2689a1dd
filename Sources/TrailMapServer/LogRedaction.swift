/// What access logs must not show.
enum LogRedaction {
    /// `uri` with the value of every `token` query parameter replaced by `REDACTED` (tile tokens
    /// open paid tiles for an hour: a log reader must not be able to reuse them).
    static func uri(_ uri: String) -> String {
        guard let q = uri.firstIndex(of: "?"), uri[q...].lowercased().contains("token=") else { return uri }
        let query = uri[uri.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { part -> Substring in
            part.lowercased().hasPrefix("token=") ? "token=REDACTED" : part
        }
        return uri[...q] + query.joined(separator: "&")
    }
}
