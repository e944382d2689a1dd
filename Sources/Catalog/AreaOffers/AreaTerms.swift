import Foundation
import TrailMapAPI

/// What a catalog product is: a region bundle, an area product or a bought area (the API's type).
public typealias ProductKind = TrailMapAPI.ProductKind

/// An area product's terms as published (`"area"` in `Catalog/products.json`): the cap of one
/// purchase and the bundles areas are cut from (file names in the tiles folder, first wins
/// where they overlap). Stored as the product's `area_json`.
public struct AreaOffer: Codable, Sendable, Equatable {
    public var maxBytes: Int64
    public var from: [String]

    public init(maxBytes: Int64, from: [String]) {
        self.maxBytes = maxBytes
        self.from = from
    }

    /// The tilesets of `from` (file names without `.mbtiles`).
    public var tilesets: [String] { from.map { $0.hasSuffix(".mbtiles") ? String($0.dropLast(8)) : $0 } }

    /// The smallest and largest caps a product file may give.
    public static let capRange: ClosedRange<Int64> = 65_536...(4 << 30)
    /// The most bundles one area product may cut from.
    public static let maxSources = 64
}

/// Where a bought area came from: its area product and its quote. Stored as the area's `area_json`.
public struct AreaOrigin: Codable, Sendable, Equatable {
    /// The area product it was bought as.
    public var of: String
    public var quote: String

    public init(of: String, quote: String) {
        self.of = of
        self.quote = quote
    }
}

extension Product {
    /// The `area_json` column's value for this product (nil for regions).
    package var areaJSON: String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data: Data? =
            switch kind {
            case .region: nil
            case .areaProduct: areaOffer.flatMap { try? encoder.encode($0) }
            case .area: areaOrigin.flatMap { try? encoder.encode($0) }
            }
        return data.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Sets `kind`, `owner`, `areaOffer` and `areaOrigin` from their columns (unknown kinds read as regions).
    package mutating func setArea(kind raw: String?, owner: String?, json: String?) {
        kind = raw.flatMap(ProductKind.init(rawValue:)) ?? .region
        self.owner = owner
        let data = json.map { Data($0.utf8) }
        areaOffer = kind == .areaProduct ? data.flatMap { try? JSONDecoder().decode(AreaOffer.self, from: $0) } : nil
        areaOrigin = kind == .area ? data.flatMap { try? JSONDecoder().decode(AreaOrigin.self, from: $0) } : nil
    }
}
