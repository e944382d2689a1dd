/// A JSON value, typed: what the OpenAPI document and other free-form JSON (schemas, examples)
/// are built from instead of `[String: Any]`. Objects encode with the encoder's key order
/// (`.sortedKeys` in the server).
public indirect enum JSONValue: Codable, Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    /// A number written without a fraction or exponent.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .bool(b): try c.encode(b)
        case let .integer(i): try c.encode(i)
        case let .number(d): try c.encode(d)
        case let .string(s): try c.encode(s)
        case let .array(a): try c.encode(a)
        case let .object(o): try c.encode(o)
        }
    }

    /// The JSON Schema type name of the value: `null`, `boolean`, `integer`, `number`, `string`,
    /// `array` or `object` (an integer is also a `number`; see `isOf(type:)`).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case let .number(d): d == d.rounded() && abs(d) < 1e15 ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Whether the value is of JSON Schema type `type` (every integer is a `number` too).
    public func isOf(type: String) -> Bool {
        typeName == type || (type == "number" && typeName == "integer")
    }

    /// The member `key` of an object, else nil.
    public subscript(key: String) -> JSONValue? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    /// The string, else nil.
    public var stringValue: String? { if case let .string(s) = self { s } else { nil } }
    /// The elements of an array, else nil.
    public var arrayValue: [JSONValue]? { if case let .array(a) = self { a } else { nil } }
    /// The members of an object, else nil.
    public var objectValue: [String: JSONValue]? { if case let .object(o) = self { o } else { nil } }
    /// The number (integer or not), else nil.
    public var numberValue: Double? {
        switch self {
        case let .integer(i): Double(i)
        case let .number(d): d
        default: nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
