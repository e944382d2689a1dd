/// Sniffing that a server can afford on every response.
extension TileFormat {
    /// The format of one encoded tile from its first bytes, as `sniff(_:)` but reading at most 12
    /// bytes in place: no copy and no allocation. nil when the bytes are none of PNG, JPEG, WebP.
    @inlinable
    public static func sniff(head bytes: UnsafeRawBufferPointer) -> TileFormat? {
        guard bytes.count >= 3 else { return nil }
        switch bytes[0] {
        case 0x89:
            // \x89 P N G \r \n \x1A \n
            guard bytes.count >= 8, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47,
                bytes[4] == 0x0D, bytes[5] == 0x0A, bytes[6] == 0x1A, bytes[7] == 0x0A
            else { return nil }
            return .png
        case 0xFF:
            return bytes[1] == 0xD8 && bytes[2] == 0xFF ? .jpg : nil
        case 0x52:
            // R I F F, a 4-byte size, W E B P
            guard bytes.count >= 12, bytes[1] == 0x49, bytes[2] == 0x46, bytes[3] == 0x46,
                bytes[8] == 0x57, bytes[9] == 0x45, bytes[10] == 0x42, bytes[11] == 0x50
            else { return nil }
            return .webp
        default:
            return nil
        }
    }
}
