import Foundation

/// Serializes the untyped JSON values the routes outside `/api/v1` still build (dictionaries,
/// arrays, strings, integers, doubles, booleans, nil, and `Encodable` values, written by
/// `JSONReply.bytes`) with sorted keys. The API's bodies are TrailMapAPI types, encoded by
/// `JSONReply.bytes` alone. Foundation's `JSONSerialization` bridges every value
/// to Objective-C-style objects and sorts keys with locale-aware comparison: measured, that was
/// two thirds of a `GET /api/v1/catalog`.
enum JSONWriter {
    /// The UTF-8 JSON text of `value`; unsupported values become `null`.
    static func bytes(_ value: Any?) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(1024)
        write(value, into: &out)
        return out
    }

    private static func write(_ value: Any?, into out: inout [UInt8]) {
        switch value {
        case nil: out += Array("null".utf8)
        case let v as String: string(v, into: &out)
        case let v as Bool: out += Array((v ? "true" : "false").utf8)
        case let v as Int: out += Array(String(v).utf8)
        case let v as Int64: out += Array(String(v).utf8)
        case let v as Int32: out += Array(String(v).utf8)
        case let v as Double: out += Array((v.isFinite ? (v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)") : "null").utf8)
        case let v as [String: Any]:
            out.append(UInt8(ascii: "{"))
            for (i, key) in v.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(v[key] ?? nil, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case let v as [Any]:
            out.append(UInt8(ascii: "["))
            for (i, e) in v.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(e, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let v as [Any?]:
            write(v.map { $0 as Any }, into: &out)
        case let v as any Encodable:
            out += (try? JSONReply.bytes(v)) ?? Array("null".utf8)
        default: out += Array("null".utf8)
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func string(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]]
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
