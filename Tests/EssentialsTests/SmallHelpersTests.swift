import Essentials
import Foundation
import Testing
import TrailMapTestSupport

@Suite(.computeThreads) struct SmallHelpersTests {
    @Test func base64URLFollowsRFC4648AndRefusesWhatIsNotIt() {
        // RFC 4648 §10 vectors, in the URL alphabet without padding.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Data(plain.utf8))
        }
        let binary = Data([0xfb, 0xff, 0xbf, 0x3e, 0x3f])
        #expect(Base64URL.encode(binary) == "-_-_Pj8", "the URL alphabet: - and _ for + and /")
        #expect(Base64URL.decode("-_-_Pj8") == binary)
        for bad in ["Zg==", "Zm9v+", "Zm9v/", "Z", "Zm 9v", "Zm9vä"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func constantTimeEqualityComparesEveryByte() {
        #expect(ConstantTime.equal(Array("secret-token".utf8), Array("secret-token".utf8)))
        #expect(!ConstantTime.equal(Array("secret-token".utf8), Array("secret-tokeN".utf8)))
        #expect(!ConstantTime.equal(Array("Secret-token".utf8), Array("secret-token".utf8)))
        #expect(!ConstantTime.equal(Array("secret".utf8), Array("secret-token".utf8)))
        #expect(ConstantTime.equal(Data(), [UInt8]()))
    }

    @Test func atomicWritesReplaceWithTheModeAndLeaveNoTemporaryFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("state.json")
        try AtomicFile.write(Data("one".utf8), to: path, mode: 0o600)
        try AtomicFile.write(Data("two".utf8), to: path, mode: 0o640)
        #expect(FileManager.default.contents(atPath: path) == Data("two".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["state.json"])
        #expect(throws: FileSystemError.self) { try AtomicFile.write(Data(), to: dir.file("no/such/folder/x"), mode: 0o600) }
        try AtomicFile.move(path, to: dir.file("moved.json"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["moved.json"])
    }
}
