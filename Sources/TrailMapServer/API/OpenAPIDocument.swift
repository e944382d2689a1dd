import Catalog
import Foundation

/// The OpenAPI 3.1 description of `/api/v1/` (served at `/api/v1/openapi.json`); docs/api.md is its prose.
enum OpenAPIDocument {
    /// One operation: method, path, summary, whether it needs a bearer token, request body schema
    /// name, its answers (status → description) and the schema name of its `200` body, if described.
    private struct Op {
        var method: String, path: String, summary: String, auth: Bool, body: String?, answers: [String: String]
        var reply: String? = nil
    }

    private static let errors = ["400": "bad input", "401": "missing or invalid bearer token", "404": "not found"]

    private static let ops: [Op] = [
        Op(method: "post", path: "/accounts", summary: "Register an account", auth: false, body: "Registration",
           answers: ["201": "the account", "409": "email taken", "429": "too many registrations from this address (Retry-After)",
                     "503": "password hashing busy (Retry-After)"]),
        Op(method: "post", path: "/sessions", summary: "Log in: a bearer token", auth: false, body: "Credentials",
           answers: ["200": "the token and its expiry", "429": "too many failed logins (Retry-After)",
                     "503": "password hashing busy (Retry-After)"]),
        Op(method: "delete", path: "/sessions", summary: "Log out", auth: true, body: nil, answers: ["204": "logged out"]),
        Op(method: "post", path: "/devices", summary: "Register a device", auth: true, body: "Device", answers: ["201": "the device id"]),
        Op(method: "put", path: "/devices/{deviceId}/installs/{productId}", summary: "Mark a region installed", auth: true,
           body: "Install", answers: ["200": "installed", "403": "not entitled", "404": "unknown device, product or version"]),
        Op(method: "delete", path: "/devices/{deviceId}/installs/{productId}", summary: "Mark a region uninstalled (the purchase stays)",
           auth: true, body: nil, answers: ["204": "uninstalled"]),
        Op(method: "get", path: "/catalog", summary: "Categories and products with the caller's status (?device=)", auth: false,
           body: nil, answers: ["200": "the catalog"], reply: "Catalog"),
        Op(method: "get", path: "/catalog/{productId}", summary: "A product: price, size, zoom range, levels of detail, coverage, preview",
           auth: false, body: nil, answers: ["200": "the product"], reply: "ProductDetail"),
        Op(method: "post", path: "/purchases", summary: "Record a signed App Store transaction", auth: true, body: "Purchase",
           answers: ["201": "entitlement granted", "200": "already owned: downloading again is free",
                     "403": "not the store's signature, chain or claims; appAccountToken of another account; refunded",
                     "409": "transaction bound to another account"]),
        Op(method: "get", path: "/entitlements", summary: "Everything the account owns (restore)", auth: true, body: nil,
           answers: ["200": "the entitlements"]),
        Op(method: "get", path: "/downloads/{productId}", summary: "The bundle file; Range, If-Range, ETag = SHA-256", auth: true,
           body: nil, answers: ["200": "the whole file", "206": "a range", "403": "not entitled or revoked", "416": "range not satisfiable"]),
        Op(method: "post", path: "/tile-tokens", summary: "A short-lived token for a paid region's tile URLs", auth: true,
           body: "TileToken", answers: ["201": "the token and tiles URL template", "403": "not entitled"]),
        Op(method: "post", path: "/store/notifications", summary: "App Store Server Notifications V2", auth: false,
           body: "Notification", answers: ["200": "handled (revoked, restored, duplicate, pending, superseded or ignored)",
                                            "403": "not the store's signature, chain or claims"]),
        Op(method: "post", path: "/sandbox/transactions", summary: "Sandbox store: sign a purchase", auth: true,
           body: "SandboxPurchase", answers: ["201": "the signed transaction"]),
        Op(method: "post", path: "/sandbox/notifications", summary: "Sandbox store: sign a refund/revoke notification", auth: true,
           body: "SandboxNotification", answers: ["201": "the signed payload"]),
    ]

    private static func schema(_ required: [String: String]) -> [String: Any] {
        ["type": "object", "required": required.keys.sorted(),
         "properties": required.mapValues { ["type": $0] }]
    }

    /// A compact JWS, as `StoreAPI.isCompactJWS` checks it (anything else is a 400).
    static let jwsPattern = "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$"
    /// A product id, as `ProductFile.isValidProductID` checks it.
    static let productIDPattern = "^[A-Za-z0-9._-]{1,128}$"

    private static func object(_ properties: [String: [String: Any]], required: [String]? = nil) -> [String: Any] {
        ["type": "object", "required": required ?? properties.keys.sorted(), "properties": properties]
    }

    private static var schemas: [String: Any] { [
        // What the server checks, declared: a request the schema allows is never refused with a 400.
        "Registration": object([
            "email": ["type": "string", "pattern": CatalogDatabase.emailPattern, "maxLength": 254],
            "password": ["type": "string", "minLength": CatalogDatabase.minimumPasswordLength,
                         "maxLength": CatalogDatabase.maximumPasswordLength],
        ]),
        "Credentials": object(["email": ["type": "string", "maxLength": 254], "password": ["type": "string", "maxLength": 256]]),
        "Device": object(["name": ["type": "string", "description": "trimmed and cut to 100 characters"]], required: []),
        "Install": object(["version": ["type": "integer", "minimum": 1, "maximum": Int32.max]]),
        "Purchase": object(["signedTransaction": ["type": "string", "pattern": jwsPattern, "maxLength": 60_000]]),
        "TileToken": object(["productId": ["type": "string", "pattern": productIDPattern]]),
        "Notification": object(["signedPayload": ["type": "string", "pattern": jwsPattern, "maxLength": 60_000]]),
        "SandboxPurchase": object(["productId": ["type": "string", "pattern": productIDPattern],
                                   "appAccountToken": ["type": "string", "format": "uuid"]], required: ["productId"]),
        "SandboxNotification": object([
            "notificationType": ["type": "string", "enum": ["REFUND", "REVOKE", "REFUND_REVERSED"]],
            "transactionId": ["type": "string", "minLength": 1, "maxLength": 128],
        ]),
        "Error": ["type": "object", "required": ["error"], "properties": ["error": schema(["code": "string", "message": "string"])]],
    ].merging(CatalogSchemas.all) { a, _ in a } }

    /// The document as a JSON object.
    static var object: [String: Any] {
        var paths = [String: [String: Any]]()
        for op in ops {
            var responses = [String: Any]()
            for (status, text) in errors.merging(op.answers, uniquingKeysWith: { _, b in b }) {
                let isError = status.hasPrefix("4")
                let reply = isError ? "Error" : status == "200" ? op.reply : nil
                responses[status] = reply.map { ["description": text, "content": ["application/json": ["schema": ["$ref": "#/components/schemas/\($0)"]]]] }
                    ?? ["description": text]
            }
            var o: [String: Any] = ["summary": op.summary, "responses": responses,
                                    "operationId": op.method + op.path.replacingOccurrences(of: "/", with: "_")
                                        .replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")]
            let params = op.path.split(separator: "/").filter { $0.hasPrefix("{") }.map { p -> [String: Any] in
                let name = String(p.dropFirst().dropLast())
                let schema: [String: Any] = name == "productId" ? ["type": "string", "pattern": productIDPattern]
                    : ["type": "string", "minLength": 1, "maxLength": 64]
                return ["name": name, "in": "path", "required": true, "schema": schema]
            }
            if !params.isEmpty { o["parameters"] = params }
            if op.auth { o["security"] = [["bearer": [String]()]] }
            if let body = op.body {
                responses["413"] = ["description": "the body is larger than 64 KiB",
                                    "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]
                o["responses"] = responses
                o["requestBody"] = ["required": true,
                                    "content": ["application/json": ["schema": ["$ref": "#/components/schemas/\(body)"]]]]
            }
            paths[op.path, default: [:]][op.method] = o
        }
        return [
            "openapi": "3.1.0",
            "info": ["title": "TrailMap store API", "version": "1.0.0",
                     "description": "Region bundles sold as non-consumable in-app purchases; see docs/api.md."],
            "servers": [["url": "/api/v1"]],
            "paths": paths,
            "components": ["schemas": schemas,
                           "securitySchemes": ["bearer": ["type": "http", "scheme": "bearer"]]],
        ]
    }
}
