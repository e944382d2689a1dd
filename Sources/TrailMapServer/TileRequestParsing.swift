import Foundation

/// The parsing of tile requests, free of NIO and Hummingbird so that it can be fuzzed on its own
/// (`scripts/fuzz.sh`): the path of `/tiles/{tileset}/{z}/{x}/{y}.EXT`, its coordinates and
/// tileset names, and `If-None-Match`.
enum TileRequestParsing {
    /// The five components of `/tiles/{tileset}/{z}/{x}/{y}.EXT` (query dropped), or nil for any
    /// other path. (A scan of the bytes: `split` was a tenth of a request's time; the components
    /// are held inline, so a request allocates no array for them.)
    static func tilePath(_ uri: String) -> TilePath? {
        let bytes = uri.utf8
        guard bytes.count <= 2048, bytes.starts(with: "/tiles/".utf8) else { return nil }
        var path = TilePath()
        var found = 0
        var start = bytes.index(after: bytes.startIndex)
        var i = start
        while i < bytes.endIndex, bytes[i] != UInt8(ascii: "?") {
            if bytes[i] == UInt8(ascii: "/") {
                guard found < 4 else { return nil }
                path[found] = uri[start..<i]
                found += 1
                start = bytes.index(after: i)
            }
            i = bytes.index(after: i)
        }
        guard found == 4 else { return nil }
        path[4] = uri[start..<i]
        return path
    }

    /// A z, x or y: 1 to 9 ASCII digits (no sign, no spaces), else nil.
    static func coordinate<S: StringProtocol>(_ s: S) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 9 else { return nil }
        var v = 0
        for c in s.utf8 {
            guard c >= 0x30, c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
        }
        return v
    }

    /// Whether an `If-None-Match` header names `etag` (weak or strong) or is `*`. Split and
    /// trimmed as bytes, as HTTP defines the field: a comma followed by a combining mark is
    /// still a separator (found by scripts/fuzz.sh).
    static func etagMatches(_ header: String, etag: String) -> Bool {
        let tag = Array(etag.utf8)
        return header.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).contains { part in
            var member = part.drop { $0 == 0x20 || $0 == 0x09 }
            while let last = member.last, last == 0x20 || last == 0x09 { member = member.dropLast() }
            if member.elementsEqual("*".utf8) { return true }
            if member.starts(with: "W/".utf8) { member = member.dropFirst(2) }
            return member.elementsEqual(tag)
        }
    }

    /// A tileset id: 1 to 128 ASCII letters, digits, '-', '_' and '.', not starting with '.'
    /// (so never a path: no '/', no '..' at the start, nothing to decode).
    static func isValidTilesetID<S: StringProtocol>(_ id: S) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, id.utf8.first != UInt8(ascii: ".") else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// The tileset id of a path component, percent-decoded, or nil when it is not a valid id.
    static func tilesetID(_ component: Substring) -> String? {
        // Percent-decoding goes through CFString: skip it for the usual plain names.
        let decoded = component.utf8.contains(UInt8(ascii: "%")) ? component.removingPercentEncoding : String(component)
        guard let decoded, isValidTilesetID(decoded) else { return nil }
        return decoded
    }
}

/// The five components of a tile path, `tiles`, tileset, z, x and `{y}.EXT`, held inline.
struct TilePath: RandomAccessCollection, MutableCollection, CustomStringConvertible {
    private var parts: (Substring, Substring, Substring, Substring, Substring) = ("", "", "", "", "")

    init() {}

    init(_ tiles: Substring, _ tileset: Substring, _ z: Substring, _ x: Substring, _ file: Substring) {
        parts = (tiles, tileset, z, x, file)
    }

    /// The path of five components, or nil for another count.
    init?<C: Collection>(_ components: C) where C.Element == Substring {
        guard components.count == 5 else { return nil }
        for (i, c) in components.enumerated() { self[i] = c }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { 5 }

    subscript(i: Int) -> Substring {
        get {
            switch i {
            case 0: parts.0
            case 1: parts.1
            case 2: parts.2
            case 3: parts.3
            case 4: parts.4
            default: preconditionFailure("a tile path has five components")
            }
        }
        set {
            switch i {
            case 0: parts.0 = newValue
            case 1: parts.1 = newValue
            case 2: parts.2 = newValue
            case 3: parts.3 = newValue
            case 4: parts.4 = newValue
            default: preconditionFailure("a tile path has five components")
            }
        }
    }

    var description: String { "/" + joined(separator: "/") }
}
