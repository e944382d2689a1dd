import NIOCore
import Testing
import TrailMapTestSupport
import TileCache

@Suite(.computeThreads) struct CachedTileTests {
    @Test(
        arguments: [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], "image/png"),
            ([0xFF, 0xD8, 0xFF, 0xE0, 0, 16], "image/jpeg"),
            ([0x52, 0x49, 0x46, 0x46, 9, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56], "image/webp"),
            ([0x52, 0x49, 0x46, 0x46, 9, 0, 0, 0, 0x57, 0x41, 0x56, 0x45], "application/octet-stream"),
            ([0x89, 0x50, 0x4E, 0x47], "application/octet-stream"),
            ([], "application/octet-stream")
        ] as [([UInt8], String)])
    func contentTypeFromMagicNumbers(bytes: [UInt8], type: String) {
        #expect(CachedTile(bytes: bytes, etag: "\"e\"").contentType == type)
        #expect(CachedTile(buffer: ByteBuffer(bytes: bytes), etag: "\"e\"").contentType == type)
    }
}
