/// JSON written by hand for answers of many numbers (`ProfileJSON`, `ElevationJSON`): raw text and
/// numbers as `JSONEncoder` writes them (the shortest form, without a trailing `.0`; null for
/// nil), noting any number JSON cannot hold.
struct JSONWriter {
    var out = [UInt8]()
    /// False once a non-finite number was given (written as null; the caller discards the text).
    var finite = true

    mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    mutating func number(_ v: Double?) {
        guard let v else { return raw("null") }
        guard v.isFinite else {
            finite = false
            return raw("null")
        }
        var text = v.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }
}
