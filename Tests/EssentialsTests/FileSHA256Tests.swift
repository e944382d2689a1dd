import Essentials
import Foundation
import Testing
import TrailMapTestSupport

@Suite(.computeThreads) struct FileSHA256Tests {
    @Test func digestsAFileAsTheStandardVectorSays() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("abc.txt")
        try Data("abc".utf8).write(to: URL(fileURLWithPath: path))
        let d = try FileSHA256.digest(path: path)
        #expect(d.size == 3)
        // FIPS 180-2 test vector for "abc".
        #expect(d.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(FileSHA256.hex(of: Data("abc".utf8)) == d.hex)
        #expect(Hex.encode([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    }

    @Test func aMissingFileIsNotFound() {
        #expect(throws: FileSystemError.notFound(path: "/nonexistent/x.mbtiles")) {
            try FileSHA256.digest(path: "/nonexistent/x.mbtiles")
        }
    }
}
