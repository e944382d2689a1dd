import Foundation
import GRDB
import Testing
import TrailMapTestSupport

/// Hardening, finding 11: `bundle verify` refuses a tile whose header claims more pixels than a
/// tile has (a decompression bomb: a few hundred bytes claiming 16384 x 16384) from its header,
/// instead of allocating a gigabyte to decode it.
@Suite(.blockingThreads) struct VerifyBombTests {
    /// CRC-32 (IEEE), as PNG chunks carry it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        let crc = crc32(typed)
        return withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + typed + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }

    /// A PNG header of `side` x `side` RGBA pixels and the start of a zlib stream (one stored
    /// block of 100 zero bytes): about 180 bytes in all.
    static func bomb(side: UInt32) -> [UInt8] {
        var ihdr = withUnsafeBytes(of: side.bigEndian, Array.init) + withUnsafeBytes(of: side.bigEndian, Array.init)
        ihdr += [8, 6, 0, 0, 0]
        let stored: [UInt8] = [0x78, 0x01, 0x00, 100, 0, ~100, 0xFF] + [UInt8](repeating: 0, count: 100)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", stored) + chunk("IEND", [])
    }

    // Hardening finding 11 (docs/notes/hardening.md).
    @Test func verifyRefusesADecompressionBombFromItsHeader() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("bomb.mbtiles")
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                    INSERT INTO metadata VALUES ('name', 'bomb'), ('format', 'png'), ('bounds', '-180,-85,180,85'),
                        ('minzoom', '0'), ('maxzoom', '0');
                    """)
            try db.execute(sql: "INSERT INTO tiles VALUES (0, 0, 0, ?)", arguments: [Data(Self.bomb(side: 16384))])
        }
        let r = try CLIRunner.run(["bundle", "verify", path])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("16384") && r.stderr.contains("too large"), "\(r.stderr)")
    }
}
