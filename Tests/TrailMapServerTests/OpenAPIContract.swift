import Foundation

/// Checks JSON answers against the schemas of the served OpenAPI document: the subset of JSON
/// Schema the document uses (`$ref` to components, `allOf`, `type`, `required`, `properties`,
/// `items`, `enum`, `minItems`, `maxItems`).
struct OpenAPIContract {
    let document: [String: Any]

    /// The schema of an operation's answer, e.g. `("/catalog/{productId}", "get", "200")`.
    func responseSchema(path: String, method: String, status: String) -> [String: Any]? {
        let paths = document["paths"] as? [String: Any]
        let operation = (paths?[path] as? [String: Any])?[method] as? [String: Any]
        let response = (operation?["responses"] as? [String: Any])?[status] as? [String: Any]
        return (((response?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]) as? [String: Any]
    }

    /// Where `value` breaks `schema`, one line each (empty when it conforms).
    func violations(_ value: Any, _ schema: [String: Any], at place: String = "$") -> [String] {
        if let ref = schema["$ref"] as? String {
            let name = ref.replacingOccurrences(of: "#/components/schemas/", with: "")
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
            guard let target = schemas?[name] as? [String: Any] else { return ["\(place): unresolved \(ref)"] }
            return violations(value, target, at: place)
        }
        var out = [String]()
        for part in schema["allOf"] as? [[String: Any]] ?? [] { out += violations(value, part, at: place) }
        if let type = schema["type"] as? String, !Self.has(value, type: type) {
            return out + ["\(place): expected \(type), found \(value)"]
        }
        if let allowed = schema["enum"] as? [String], let s = value as? String, !allowed.contains(s) {
            out.append("\(place): \(s) is not one of \(allowed)")
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { out.append("\(place): missing \(key)") }
            for (key, sub) in schema["properties"] as? [String: [String: Any]] ?? [:] {
                if let v = object[key] { out += violations(v, sub, at: "\(place).\(key)") }
            }
        }
        if let array = value as? [Any] {
            if let n = schema["minItems"] as? Int, array.count < n { out.append("\(place): fewer than \(n) items") }
            if let n = schema["maxItems"] as? Int, array.count > n { out.append("\(place): more than \(n) items") }
            if let items = schema["items"] as? [String: Any] {
                for (i, v) in array.enumerated() { out += violations(v, items, at: "\(place)[\(i)]") }
            }
        }
        return out
    }

    /// JSON types as JSONSerialization returns them: numbers are NSNumber, and so are booleans
    /// (told apart by their type code `c`; `is Bool` also holds for the numbers 0 and 1).
    private static func has(_ value: Any, type: String) -> Bool {
        let number = value as? NSNumber
        let isBool = number.map { String(cString: $0.objCType) == "c" } ?? false
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return isBool
        case "integer": return number.map { !isBool && $0.doubleValue == $0.doubleValue.rounded() } ?? false
        case "number": return number != nil && !isBool
        default: return true
        }
    }
}
