/// The catalog: a category tree and the products (`GET /catalog`).
public struct CatalogListing: Codable, Sendable, Equatable {
    /// A node of the category tree.
    public struct Category: Codable, Sendable, Equatable {
        public var name: String
        public var path: String
        public var children: [Category]
    }

    public var categories: [Category]
    public var products: [Product]

    public init(categories: [Category], products: [Product]) {
        self.categories = categories
        self.products = products
    }
}
