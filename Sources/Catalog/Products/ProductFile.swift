import Foundation

/// `Catalog/products.json`: what is for sale. Size, SHA-256, bounds and zoom range are never
/// written here: publishing reads them from the bundle.
///
/// ```json
/// {"products": [{"productId": "com.trailmap.region.colorado", "title": "Colorado",
///   "category": "States/Colorado", "description": "...",
///   "price": {"amount": "4.99", "currency": "USD"}, "bundle": "colorado.mbtiles"}]}
/// ```
public struct ProductFile: Sendable, Decodable {
    public struct Entry: Sendable, Decodable {
        public var productId: String
        public var title: String
        public var category: String
        public var description: String?
        public var price: Price
        /// The bundle's file name inside the tiles folder (a region).
        public var bundle: String?
        /// Or the terms of an area product: each purchase buys one quoted area cut from these bundles.
        public var area: AreaOffer?

        /// `category` as published: its `/`-separated parts trimmed of spaces.
        var categoryPath: String {
            category.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "/")
        }
    }

    public var products: [Entry]

    /// Reads and checks a product file.
    public static func load(path: String) throws(CatalogError) -> ProductFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .productFile(path: path, reason: "cannot read the file")
        }
        let file: ProductFile
        do { file = try JSONDecoder().decode(ProductFile.self, from: data) } catch {
            throw .productFile(path: path, reason: "not a valid product file: \(Self.explain(error))")
        }
        var seen = Set<String>(), bundles = Set<String>()
        for e in file.products {
            let fail = { (why: String) in CatalogError.productFile(path: path, reason: "product \(e.productId): \(why)") }
            guard isValidProductID(e.productId) else {
                throw .productFile(
                    path: path, reason: "invalid productId \"\(e.productId.prefix(80))\": use letters, digits, '.', '_' and '-'")
            }
            guard seen.insert(e.productId).inserted else { throw fail("listed twice") }
            guard !e.title.isEmpty, e.title.count <= 200 else { throw fail("title must have 1 to 200 characters") }
            let parts = e.category.split(separator: "/", omittingEmptySubsequences: false)
            guard !parts.isEmpty, parts.count <= 5, parts.allSatisfy({ !$0.trimmingCharacters(in: .whitespaces).isEmpty && $0.count <= 80 })
            else {
                throw fail("category must be a path like \"States/Colorado\"")
            }
            guard let amount = Decimal(string: e.price.amount), amount >= 0, amount < 10_000,
                e.price.amount.allSatisfy({ $0.isNumber || $0 == "." })
            else {
                throw fail("price amount must be a decimal string like \"4.99\"")
            }
            guard e.price.currency.count == 3, e.price.currency.allSatisfy({ $0.isUppercase }) else {
                throw fail("price currency must be an ISO 4217 code like USD")
            }
            switch (e.bundle, e.area) {
            case let (bundle?, nil):
                guard isBundleName(bundle) else { throw fail("bundle must be a .mbtiles file name in the tiles folder") }
                guard bundles.insert(bundle).inserted else { throw fail("bundle \(bundle) belongs to two products") }
            case let (nil, area?):
                guard AreaOffer.capRange.contains(area.maxBytes) else {
                    throw fail("area.maxBytes must be \(AreaOffer.capRange.lowerBound) to \(AreaOffer.capRange.upperBound) bytes")
                }
                guard !area.from.isEmpty, area.from.count <= AreaOffer.maxSources, area.from.allSatisfy(isBundleName) else {
                    throw fail("area.from must list 1 to \(AreaOffer.maxSources) .mbtiles file names in the tiles folder")
                }
                guard Set(area.from).count == area.from.count else { throw fail("area.from lists a bundle twice") }
                guard amount > 0 else { throw fail("an area product needs a price: each purchase buys one area") }
            default:
                throw fail("give either \"bundle\" (a region) or \"area\" (an area product), not both")
            }
        }
        return file
    }

    /// A `.mbtiles` file name directly in the tiles folder.
    static func isBundleName(_ name: String) -> Bool {
        name.hasSuffix(".mbtiles") && name.count > 8 && !name.contains("/") && !name.hasPrefix(".")
    }

    /// Letters, digits, `.`, `_`, `-`; 1 to 128 characters.
    public static func isValidProductID<S: StringProtocol>(_ id: S) -> Bool {
        !id.isEmpty && id.utf8.count <= 128
            && id.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
            }
    }

    private static func explain(_ error: any Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, ctx): "missing \"\(key.stringValue)\" at \(path(ctx))"
        case let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx): "wrong type at \(path(ctx))"
        case let DecodingError.dataCorrupted(ctx): ctx.debugDescription
        default: "\(error)"
        }
    }

    private static func path(_ ctx: DecodingError.Context) -> String {
        ctx.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
