/// The OpenAPI schemas of the catalog's answers (`GET /catalog`, `GET /catalog/{productId}`), as
/// `StoreAPI.summaryJSON`, `levelJSON` and `catalogDetail` write them.
enum CatalogSchemas {
    private static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }
    private static func type(_ t: String) -> [String: Any] { ["type": t] }
    private static func array(_ items: [String: Any]) -> [String: Any] { ["type": "array", "items": items] }
    private static func object(_ properties: [String: [String: Any]], optional: Set<String> = []) -> [String: Any] {
        ["type": "object", "required": properties.keys.filter { !optional.contains($0) }.sorted(), "properties": properties]
    }

    static var all: [String: Any] { [
        "Catalog": object(["categories": array(ref("Category")), "products": array(ref("ProductSummary"))]),
        "Category": object(["name": type("string"), "path": type("string"), "children": array(ref("Category"))]),
        "Price": object(["amount": type("string"), "currency": type("string")]),
        "Level": object([
            "name": type("string"),
            "title": type("string"),
            "kind": ["type": "string", "enum": ["series", "overlay"]],
            "minzoom": type("integer"),
            "maxzoom": type("integer"),
            "summary": ["type": "string", "description": "The level in a buyer's words, e.g. \"30-minute maps, zooms 8–11\""],
        ]),
        "ProductSummary": object([
            "productId": type("string"), "title": type("string"), "category": type("string"), "description": type("string"),
            "price": ref("Price"), "free": type("boolean"), "version": type("integer"), "size": type("integer"),
            "sha256": type("string"), "minzoom": type("integer"), "maxzoom": type("integer"), "tileset": type("string"),
            "bounds": ["type": "array", "items": type("number"), "minItems": 4, "maxItems": 4,
                       "description": "west, south, east, north in degrees"],
            "status": ["type": "string", "enum": ["for_sale", "free", "purchased", "installed", "update_available", "revoked", "unavailable"]],
            "installedVersion": type("integer"),
            "levels": ["type": "array", "items": ref("Level"),
                       "description": "The bundle's levels of detail, lower first; empty for bundles that record none"],
            "levelsSummary": ["type": "string",
                              "description": "The levels in a buyer's words, `; `-separated; empty when there are none"],
        ], optional: ["installedVersion"]),
        "ProductDetail": ["allOf": [ref("ProductSummary"), object([
            "coverage": type("object"), "previewTileURL": type("string"), "downloadURL": type("string"),
            "tileJSONURL": type("string"), "publishedAt": type("string"),
        ])]],
    ] }
}
