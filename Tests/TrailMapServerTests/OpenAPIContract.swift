import Foundation

/// Checks JSON answers against the schemas of the served OpenAPI document: the subset of JSON
/// Schema the document uses (`$ref` to components, `allOf`, `type`, `required`, `properties`,
/// `items`, `enum`, `minItems`, `maxItems`). An object's schema with `properties` is read as
/// closed: a member it does not declare is a violation (the bodies are the TrailMapAPI types,
/// and every property of theirs must be documented).
struct OpenAPIContract {
    let document: [String: Any]

    /// What a check saw: the component schemas it reached and, per schema, the object members
    /// that appeared (to tell which optional properties a test exercised).
    final class Trace {
        var schemas: Set<String> = []
        var members: [String: Set<String>] = [:]
    }

    /// The component schema `name`, e.g. `ProductSummary`.
    func component(_ name: String) -> [String: Any]? {
        ((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?[name] as? [String: Any]
    }

    /// The component names of the document.
    var componentNames: Set<String> {
        Set(((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    /// The schema of an operation's answer, e.g. `("/catalog/{productId}", "get", "200")`.
    func responseSchema(path: String, method: String, status: String) -> [String: Any]? {
        let paths = document["paths"] as? [String: Any]
        let operation = (paths?[path] as? [String: Any])?[method] as? [String: Any]
        let response = (operation?["responses"] as? [String: Any])?[status] as? [String: Any]
        return (((response?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]) as? [String: Any]
    }

    /// Where `value` breaks `schema`, one line each (empty when it conforms).
    /// `trace` records what was reached; `name` is the component `schema` is (when it is one).
    func violations(_ value: Any, _ schema: [String: Any], at place: String = "$", trace: Trace? = nil, name: String? = nil) -> [String] {
        if let ref = schema["$ref"] as? String {
            let name = ref.replacingOccurrences(of: "#/components/schemas/", with: "")
            guard let target = component(name) else { return ["\(place): unresolved \(ref)"] }
            return violations(value, target, at: place, trace: trace, name: name)
        }
        if let name { trace?.schemas.insert(name) }
        var out = [String]()
        for part in schema["allOf"] as? [[String: Any]] ?? [] { out += violations(value, part, at: place, trace: trace) }
        if let type = schema["type"] as? String, !Self.has(value, type: type) {
            return out + ["\(place): expected \(type), found \(value)"]
        }
        if let allowed = schema["enum"] as? [String], let s = value as? String, !allowed.contains(s) {
            out.append("\(place): \(s) is not one of \(allowed)")
        }
        if let object = value as? [String: Any] {
            if let name { trace?.members[name, default: []].formUnion(object.keys) }
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { out.append("\(place): missing \(key)") }
            if let properties = schema["properties"] as? [String: [String: Any]] {
                for key in object.keys.sorted() where properties[key] == nil { out.append("\(place): \(key) is not declared") }
                for (key, sub) in properties {
                    if let v = object[key] { out += violations(v, sub, at: "\(place).\(key)", trace: trace) }
                }
            }
        }
        if let array = value as? [Any] {
            if let n = schema["minItems"] as? Int, array.count < n { out.append("\(place): fewer than \(n) items") }
            if let n = schema["maxItems"] as? Int, array.count > n { out.append("\(place): more than \(n) items") }
            if let items = schema["items"] as? [String: Any] {
                for (i, v) in array.enumerated() { out += violations(v, items, at: "\(place)[\(i)]", trace: trace) }
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
