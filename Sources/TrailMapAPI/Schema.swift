/// Builders for the OpenAPI 3.1 (JSON Schema) descriptions of the bodies: each body type declares
/// its `schema` next to its properties, and the server's OpenAPI document collects them
/// (`APISchemas.components`). A test checks real encoded values against them.
public enum Schema {
    /// `{"$ref": "#/components/schemas/NAME"}`.
    public static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    public static let boolean: JSONValue = ["type": "boolean"]
    public static let number: JSONValue = ["type": "number"]

    /// A string, with the constraints given.
    public static func string(
        pattern: String? = nil, format: String? = nil, minLength: Int? = nil, maxLength: Int? = nil,
        enum values: [String]? = nil, description: String? = nil
    ) -> JSONValue {
        var o: [String: JSONValue] = ["type": "string"]
        if let pattern { o["pattern"] = .string(pattern) }
        if let format { o["format"] = .string(format) }
        if let minLength { o["minLength"] = .integer(Int64(minLength)) }
        if let maxLength { o["maxLength"] = .integer(Int64(maxLength)) }
        if let values { o["enum"] = .array(values.map(JSONValue.string)) }
        if let description { o["description"] = .string(description) }
        return .object(o)
    }

    /// An integer, with the bounds given.
    public static func integer(minimum: Int64? = nil, maximum: Int64? = nil, description: String? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["type": "integer"]
        if let minimum { o["minimum"] = .integer(minimum) }
        if let maximum { o["maximum"] = .integer(maximum) }
        if let description { o["description"] = .string(description) }
        return .object(o)
    }

    /// An array of `items`.
    public static func array(_ items: JSONValue, minItems: Int? = nil, maxItems: Int? = nil, description: String? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["type": "array", "items": items]
        if let minItems { o["minItems"] = .integer(Int64(minItems)) }
        if let maxItems { o["maxItems"] = .integer(Int64(maxItems)) }
        if let description { o["description"] = .string(description) }
        return .object(o)
    }

    /// An object with these properties, all required but the `optional` ones.
    public static func object(_ properties: [String: JSONValue], optional: Set<String> = [], description: String? = nil) -> JSONValue {
        var o: [String: JSONValue] = [
            "type": "object",
            "required": .array(properties.keys.filter { !optional.contains($0) }.sorted().map(JSONValue.string)),
            "properties": .object(properties)
        ]
        if let description { o["description"] = .string(description) }
        return .object(o)
    }
}

/// Shapes the server checks, shared by the schemas and the server's own checks.
public enum APIPattern {
    /// A compact JWS (three non-empty base64url parts), as `StoreAPI.isCompactJWS` checks it.
    public static let jws = "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$"
    /// The longest JWS accepted, in bytes.
    public static let jwsMaxLength = 60_000
    /// A product id, as `ProductFile.isValidProductID` checks it.
    public static let productID = "^[A-Za-z0-9._-]{1,128}$"
}
