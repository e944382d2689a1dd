/// One level of detail of a product's bundle, as the catalog describes it (`levels` in
/// docs/api.md): a map series or an overlay and the zooms it serves.
public struct ProductLevel: Codable, Sendable, Equatable {
    /// Short identifier, e.g. `quads-7.5`.
    public var name: String
    /// What a buyer reads, e.g. `7.5-minute maps`.
    public var title: String
    /// `series` or `overlay` (kept as text: a newer server may know more kinds).
    public var kind: String
    public var minzoom: Int
    public var maxzoom: Int
    /// The level in a buyer's words, e.g. `30-minute maps, zooms 8–11`.
    public var summary: String

    public init(name: String, title: String, kind: String, minzoom: Int, maxzoom: Int, summary: String) {
        self.name = name
        self.title = title
        self.kind = kind
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.summary = summary
    }
}
