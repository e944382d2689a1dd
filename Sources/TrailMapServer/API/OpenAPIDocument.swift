import Catalog
import Foundation
import TrailMapAPI

/// The OpenAPI 3.1 description of `/api/v1/` (served at `/api/v1/openapi.json`); docs/api.md is its prose.
enum OpenAPIDocument {
    /// One operation: method, path, summary, whether it needs a bearer token, request body schema
    /// name, its answers (status → description) and the schema names of its success bodies (status → name).
    private struct Op {
        var method: String, path: String, summary: String, auth: Bool, body: String?, answers: [String: String]
        var replies: [String: String] = [:]
        /// Query parameters: name → schema; optional unless named in `required`.
        var query: [String: JSONValue] = [:]
        var required: Set<String> = []
    }

    /// The elevation routes' `spacingM` parameter.
    static let spacingQuery: [String: JSONValue] = [
        "spacingM": [
            "type": "number", "exclusiveMinimum": .integer(0), "maximum": .integer(Int64(ElevationInput.maxSpacing)),
            "description": "metres between samples (default 10; widened for a very long line)"
        ]
    ]

    /// `GET /elevation`'s `points`: LAT,LON pairs separated by semicolons.
    static let pointsQuery: [String: JSONValue] = {
        let number = "-?[0-9]{1,3}(\\.[0-9]{1,12})?"
        let pair = number + "," + number
        return [
            "points": Schema.string(
                pattern: "^\(pair)(;\(pair))*$", maxLength: 60_000,
                description: "LAT,LON;LAT,LON... in degrees, at most 1000 points")
        ]
    }()

    /// A comma-separated list of `words`.
    static func listPattern(_ words: [String]) -> String {
        let one = "(" + words.joined(separator: "|") + ")"
        return "^\(one)(,\(one))*$"
    }

    /// `GET /trails`'s query parameters.
    static let trailQuery: [String: JSONValue] = [
        "near": Schema.string(maxLength: 200, description: "LAT,LON, or a place name of the server's list"),
        "radiusKm": ["type": "number", "exclusiveMinimum": .integer(0), "maximum": .integer(20_000)],
        "bbox": Schema.string(
            pattern: "^-?[0-9]{1,3}(\\.[0-9]{1,12})?(,-?[0-9]{1,3}(\\.[0-9]{1,12})?){3}$", description: "west,south,east,north in degrees"),
        "q": Schema.string(maxLength: 200, description: "name or ref: case and accents ignored, the last word a prefix, typos tolerated"),
        "difficulty": Schema.string(
            pattern: listPattern(TrailResult.difficulties), maxLength: 200,
            description: "comma-separated: easy, moderate, hard, expert, unknown"),
        "uses": Schema.string(
            pattern: listPattern(TrailResult.uses), maxLength: 200,
            description: "comma-separated uses every result allows: foot, bicycle, horse, motor_vehicle, ski"),
        "excludeUses": Schema.string(
            pattern: listPattern(TrailResult.uses), maxLength: 200, description: "comma-separated uses no result allows"),
        "minLengthKm": ["type": "number", "minimum": .integer(0)], "maxLengthKm": ["type": "number", "minimum": .integer(0)],
        "maxAscentM": [
            "type": "number", "minimum": .integer(0), "description": "stored ascent at most this (trails without elevation are left out)"
        ],
        "maxGradePct": ["type": "number", "minimum": .integer(0), "description": "stored steepest grade at most this, percent"],
        "sort": Schema.string(enum: ["distance", "length", "name"]),
        "limit": Schema.integer(minimum: 1, maximum: 1000),
        "cursor": Schema.string(maxLength: 512, description: "nextCursor of the previous page")
    ]

    private static let errors = ["400": "bad input", "401": "missing or invalid bearer token", "404": "not found"]

    private static let ops: [Op] = [
        Op(
            method: "post", path: "/accounts", summary: "Register an account", auth: false, body: "Registration",
            answers: [
                "201": "the account", "409": "email taken", "429": "too many registrations from this address (Retry-After)",
                "503": "password hashing busy (Retry-After)"
            ], replies: ["201": "AccountCreated"]),
        Op(
            method: "post", path: "/sessions", summary: "Log in: a bearer token", auth: false, body: "Credentials",
            answers: [
                "200": "the token and its expiry", "429": "too many failed logins (Retry-After)",
                "503": "password hashing busy (Retry-After)"
            ], replies: ["200": "Session"]),
        Op(method: "delete", path: "/sessions", summary: "Log out", auth: true, body: nil, answers: ["204": "logged out"]),
        Op(
            method: "post", path: "/devices", summary: "Register a device", auth: true, body: "Device", answers: ["201": "the device id"],
            replies: ["201": "DeviceRegistration"]),
        Op(
            method: "put", path: "/devices/{deviceId}/installs/{productId}", summary: "Mark a region installed", auth: true,
            body: "Install", answers: ["200": "installed", "403": "not entitled", "404": "unknown device, product or version"],
            replies: ["200": "InstallResult"]),
        Op(
            method: "delete", path: "/devices/{deviceId}/installs/{productId}", summary: "Mark a region uninstalled (the purchase stays)",
            auth: true, body: nil, answers: ["204": "uninstalled"]),
        Op(
            method: "get", path: "/installs",
            summary: "The products installed on any of the account's devices (what a restore reinstalls besides purchases)",
            auth: true, body: nil, answers: ["200": "the product ids"], replies: ["200": "AccountInstalls"]),
        Op(
            method: "get", path: "/catalog", summary: "Categories and products with the caller's status (?device=)", auth: false,
            body: nil, answers: ["200": "the catalog"], replies: ["200": "Catalog"]),
        Op(
            method: "get", path: "/catalog/{productId}", summary: "A product: price, size, zoom range, levels of detail, coverage, preview",
            auth: false, body: nil, answers: ["200": "the product"], replies: ["200": "ProductDetail"]),
        Op(
            method: "post", path: "/purchases", summary: "Record a signed App Store transaction", auth: true, body: "Purchase",
            answers: [
                "201": "entitlement granted", "200": "already owned: downloading again is free",
                "403": "not the store's signature, chain or claims; appAccountToken of another account; refunded",
                "409": "transaction bound to another account"
            ],
            replies: ["201": "PurchaseResult", "200": "PurchaseResult"]),
        Op(
            method: "get", path: "/entitlements", summary: "Everything the account owns (restore)", auth: true, body: nil,
            answers: ["200": "the entitlements"], replies: ["200": "EntitlementList"]),
        Op(
            method: "get", path: "/downloads/{productId}", summary: "The bundle file; Range, If-Range, ETag = SHA-256", auth: true,
            body: nil,
            answers: ["200": "the whole file", "206": "a range", "403": "not entitled or revoked", "416": "range not satisfiable"]),
        Op(
            method: "get", path: "/updates/{productId}/{fromVersion}",
            summary: "How a device with fromVersion installed gets the published version: patches (if smaller) beside the full size",
            auth: true, body: nil,
            answers: [
                "200": "the update", "400": "fromVersion is not a version number",
                "403": "not entitled or revoked"
            ], replies: ["200": "ProductUpdate"]),
        Op(
            method: "get", path: "/downloads/{productId}/patches/{patch}",
            summary: "A patch file ({from}-{to}); Range, If-Range, ETag = SHA-256", auth: true, body: nil,
            answers: [
                "200": "the whole file", "206": "a range", "403": "not entitled or revoked", "404": "no such patch",
                "416": "range not satisfiable"
            ]),
        Op(
            method: "post", path: "/areas/quotes",
            summary: "Quote an area around a point (center, radiusKm) or a box (bbox): exact size, zooms, the area product to buy",
            auth: true,
            body: "AreaQuoteRequest",
            answers: [
                "201": "the quote (the top zoom may be lowered to fit the product's cap: see message)",
                "404": "no area product covers the place (error.nearby lists the nearest regions); unknown product",
                "422":
                    """
                values that contradict each other (invalid_area: a box reaching more than 200 km from its centre, minzoom > \
                maxzoom, zooms no area product there has), not an area product, or larger than the cap at the zooms asked \
                (area_too_large, error.largestRadiusKm)
                """,
                "429":
                    """
                a quote of the account's (or of its address's) is being cut (quote_in_progress), too many quotes lately \
                (too_many_quotes), or its unbought quotes hold its share of the space (quote_space_used); Retry-After
                """,
                "503": "busy: the waiting line is full, or unbought quotes fill the server's space (Retry-After)"
            ],
            replies: ["201": "AreaQuote"]),
        Op(
            method: "get", path: "/areas/quotes/{quoteId}", summary: "One of the account's quotes", auth: true, body: nil,
            answers: ["200": "the quote", "410": "expired"], replies: ["200": "AreaQuote"]),
        Op(
            method: "post", path: "/areas", summary: "Buy a quote with a signed Consumable transaction of its area product", auth: true,
            body: "AreaPurchase",
            answers: [
                "201": "the area (a product of the account's own: download and install it by areaId)",
                "200": "this transaction had already bought this quote",
                "403": "not the store's, not a Consumable, another account's token, refunded",
                "409": "quote already bought, transaction used or another account's", "410": "quote expired"
            ],
            replies: ["201": "AreaPurchaseResult", "200": "AreaPurchaseResult"]),
        Op(
            method: "post", path: "/tile-tokens", summary: "A short-lived token for a paid region's tile URLs", auth: true,
            body: "TileToken", answers: ["201": "the token and tiles URL template", "403": "not entitled"],
            replies: ["201": "TileTokenGrant"]),
        Op(
            method: "post", path: "/download-links",
            summary: "A signed, expiring link to the bundle that needs no credentials, for CDNs (GET|HEAD /bundles/...)", auth: true,
            body: "DownloadLinkRequest", answers: ["201": "the link", "403": "not entitled or revoked"],
            replies: ["201": "DownloadLink"]),
        Op(
            method: "get", path: "/trails",
            summary:
                """
                Search the published regions' trails: near a point or place, in a box, by name, difficulty, uses, length; each result \
                names the regions holding it
                """,
            auth: false, body: nil,
            answers: [
                "200": "a page of trails", "404": "near names no place of the server's list (unknown_place)",
                "422":
                    """
                values that contradict each other or name nothing (invalid_trail_query: a radius without a point, near and bbox \
                both, min above max length, an unknown difficulty or use, a cursor of another query)
                """
            ],
            replies: ["200": "TrailSearchResult"], query: trailQuery),
        Op(
            method: "get", path: "/trails/{trailId}",
            summary: "A trail: its facts and regions, and its line (GeoJSON) for an owner of one of them",
            auth: false, body: nil, answers: ["200": "the trail", "404": "no published region holds it"], replies: ["200": "TrailDetail"]),
        Op(
            method: "get", path: "/trails/{trailId}/gpx",
            summary: "A trail's line as GPX, for an owner of a region holding it (free regions: everyone)",
            auth: false, body: nil,
            answers: ["200": "the GPX file", "401": "a paid trail: sign in", "403": "not entitled to a region holding it"]),
        Op(
            method: "get", path: "/trails/{trailId}/profile",
            summary:
                "A trail's elevation profile from the published terrain, for an owner of a region holding it and a reader of the terrain",
            auth: false, body: nil,
            answers: [
                "200": "the profile", "401": "a paid trail or terrain: sign in",
                "403": "not entitled to a region holding it or to the terrain",
                "404": "no published region holds it",
                "422": "the trail lies outside every terrain (outside_terrain), or a spacing out of range"
            ],
            replies: ["200": "Profile"], query: spacingQuery),
        Op(
            method: "get", path: "/elevation",
            summary: "Elevations of points from the published terrain (voids and points outside are null)",
            auth: false, body: nil,
            answers: [
                "200": "the points' elevations", "401": "the only terrain there is paid: sign in or send a tile token",
                "403": "not entitled to the terrain there",
                "422": "more than 1000 points, a coordinate out of range, or every point outside the terrain (outside_terrain)"
            ],
            replies: ["200": "ElevationAnswer"], query: pointsQuery, required: ["points"]),
        Op(
            method: "post", path: "/profile", summary: "The elevation profile of a GeoJSON LineString (or a Feature holding one)",
            auth: false, body: "ProfileRequest",
            answers: [
                "200": "the profile", "401": "the only terrain there is paid: sign in or send a tile token",
                "403": "not entitled to the terrain there",
                "422": "a coordinate out of range, too many positions, or the line outside the terrain (outside_terrain)"
            ],
            replies: ["200": "Profile"], query: spacingQuery),
        Op(
            method: "post", path: "/store/notifications", summary: "App Store Server Notifications V2", auth: false,
            body: "Notification",
            answers: [
                "200": "handled (revoked, restored, duplicate, pending, superseded or ignored)",
                "403": "not the store's signature, chain or claims"
            ],
            replies: ["200": "NotificationResult"]),
        Op(
            method: "post", path: "/sandbox/transactions", summary: "Sandbox store: sign a purchase", auth: true,
            body: "SandboxPurchase", answers: ["201": "the signed transaction"], replies: ["201": "Purchase"]),
        Op(
            method: "post", path: "/sandbox/notifications", summary: "Sandbox store: sign a refund/revoke notification", auth: true,
            body: "SandboxNotification", answers: ["201": "the signed payload"], replies: ["201": "Notification"])
    ]

    /// A compact JWS, as `StoreAPI.isCompactJWS` checks it (anything else is a 400).
    static let jwsPattern = APIPattern.jws
    /// A product id, as `ProductFile.isValidProductID` checks it.
    static let productIDPattern = APIPattern.productID

    /// The bodies' schemas, as the TrailMapAPI types declare them; `Registration` with the
    /// catalog's rules (what the server checks, declared: a request the schema allows is never
    /// refused with a 400).
    static var schemas: [String: JSONValue] {
        APISchemas.components(
            emailPattern: AccountRules.emailPattern,
            passwordLength: AccountRules.minimumPasswordLength...AccountRules.maximumPasswordLength)
    }

    private static func content(_ schema: String) -> JSONValue {
        ["application/json": ["schema": Schema.ref(schema)]]
    }

    /// The document.
    static var object: JSONValue {
        var paths = [String: [String: JSONValue]]()
        for op in ops {
            var responses = [String: JSONValue]()
            for (status, text) in errors.merging(op.answers, uniquingKeysWith: { _, b in b }) {
                let isError = status.hasPrefix("4")
                let reply = isError ? "Error" : op.replies[status]
                responses[status] = reply.map { ["description": .string(text), "content": content($0)] } ?? ["description": .string(text)]
            }
            var o: [String: JSONValue] = [
                "summary": .string(op.summary),
                "operationId": .string(
                    op.method
                        + op.path.replacingOccurrences(of: "/", with: "_")
                        .replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: ""))
            ]
            let params = op.path.split(separator: "/").filter { $0.hasPrefix("{") }.map { p -> JSONValue in
                let name = String(p.dropFirst().dropLast())
                let schema =
                    switch name {
                    case "productId": Schema.string(pattern: productIDPattern)
                    case "fromVersion": Schema.integer(minimum: 1, maximum: Int64(Int32.max))
                    case "trailId": Schema.string(pattern: "^[0-7][0-9a-f]{15}$")
                    default: Schema.string(minLength: 1, maxLength: 64)
                    }
                return ["name": .string(name), "in": "path", "required": true, "schema": schema]
            }
            let query = op.query.keys.sorted().map { name -> JSONValue in
                ["name": .string(name), "in": "query", "required": .bool(op.required.contains(name)), "schema": op.query[name]!]
            }
            if !(params + query).isEmpty { o["parameters"] = .array(params + query) }
            if op.auth { o["security"] = [["bearer": []]] }
            if let body = op.body {
                responses["400"] = ["description": "bad input, or a body larger than 64 KiB (body_too_large)", "content": content("Error")]
                o["requestBody"] = ["required": true, "content": content(body)]
            }
            o["responses"] = .object(responses)
            paths[op.path, default: [:]][op.method] = .object(o)
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "TrailMap store API", "version": "1.0.0",
                "description":
                    """
                Region bundles sold as non-consumable in-app purchases; see docs/api.md. The bodies are the types of \
                Sources/TrailMapAPI.
                """
            ],
            "servers": [["url": "/api/v1"]],
            "paths": .object(paths.mapValues(JSONValue.object)),
            "components": [
                "schemas": .object(schemas),
                "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]]
            ]
        ]
    }
}
