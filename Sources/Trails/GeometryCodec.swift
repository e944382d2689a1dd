/// The compact storage of a trail's geometry (the `geometry` column of `trails`):
///
///     varint part count, then for each part: varint point count, then every point as two
///     zigzag varints (longitude, latitude) in microdegrees (1e-6 degree, about 0.11 m), each the
///     difference from the previous point (the first from 0, 0; differences run across parts).
///
/// A varint is LEB128: seven bits a byte, low bits first, the high bit set on all but the last.
public enum GeometryCodec {
    /// Microdegrees per degree.
    public static let scale = 1_000_000.0

    public static func encode(_ geometry: TrailGeometry) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(geometry.pointCount * 3 + 4)
        putVarint(UInt64(geometry.parts.count), &out)
        var px: Int64 = 0, py: Int64 = 0
        for part in geometry.parts {
            putVarint(UInt64(part.count), &out)
            for p in part {
                let x = Int64((p.lon * scale).rounded()), y = Int64((p.lat * scale).rounded())
                putVarint(zigzag(x - px), &out)
                putVarint(zigzag(y - py), &out)
                px = x
                py = y
            }
        }
        return out
    }

    /// Decodes a blob; nil when it is not a geometry in this encoding (truncated, or points out of range).
    public static func decode(_ bytes: [UInt8]) -> TrailGeometry? {
        var i = 0
        guard let partCount = getVarint(bytes, &i), partCount <= UInt64(bytes.count) else { return nil }
        var parts = [[LonLat]]()
        parts.reserveCapacity(Int(partCount))
        var px: Int64 = 0, py: Int64 = 0
        for _ in 0..<partCount {
            guard let n = getVarint(bytes, &i), n <= UInt64(bytes.count) else { return nil }
            var part = [LonLat]()
            part.reserveCapacity(Int(n))
            for _ in 0..<n {
                guard let dx = getVarint(bytes, &i), let dy = getVarint(bytes, &i) else { return nil }
                px &+= unzigzag(dx)
                py &+= unzigzag(dy)
                let lon = Double(px) / scale, lat = Double(py) / scale
                guard (-180...180).contains(lon), (-90...90).contains(lat) else { return nil }
                part.append(LonLat(lon: lon, lat: lat))
            }
            parts.append(part)
        }
        return i == bytes.count ? TrailGeometry(parts: parts) : nil
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    static func unzigzag(_ v: UInt64) -> Int64 { Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }

    static func putVarint(_ value: UInt64, _ out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func getVarint(_ bytes: [UInt8], _ i: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while i < bytes.count, shift < 64 {
            let b = bytes[i]
            i += 1
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
        return nil
    }
}
