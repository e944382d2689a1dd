/// Reads little-endian base-128 varints, refusing ones longer than 64 bits and reads past the end.
struct VarintReader {
    let bytes: [UInt8]
    let name: String
    var position = 0

    init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    mutating func next() throws(PMTilesProblem) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw .truncatedDirectory(directory: name) }
            let byte = bytes[position]
            position += 1
            // The tenth byte may only carry the 64th bit.
            guard shift < 63 || (shift == 63 && byte <= 1) else { throw .varintOverflow(directory: name) }
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }
}
