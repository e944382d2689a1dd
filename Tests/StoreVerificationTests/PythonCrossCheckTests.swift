import Foundation
import Testing
import TrailMapTestSupport
@testable import StoreVerification

/// Cross-checks sandbox JWS with an independent implementation (PyPI `cryptography`), when
/// python3 with that package is installed; otherwise the test passes without checking.
@Suite(.computeThreads) struct PythonCrossCheckTests {
    private static let script = #"""
        import base64, json, sys
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

        def b64url(s):
            return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))

        jws = sys.stdin.read().strip()
        h, p, s = jws.split(".")
        header = json.loads(b64url(h))
        assert header["alg"] == "ES256", header
        leaf, inter, root = [x509.load_der_x509_certificate(base64.b64decode(c)) for c in header["x5c"]]
        root.verify_directly_issued_by(root)
        inter.verify_directly_issued_by(root)
        leaf.verify_directly_issued_by(inter)
        for cert, oid in ((inter, "1.2.840.113635.100.6.2.1"), (leaf, "1.2.840.113635.100.6.11.1")):
            ext = cert.extensions.get_extension_for_oid(x509.ObjectIdentifier(oid))
            assert not ext.critical and ext.value.value == b"\x05\x00", ext
        assert inter.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
        assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
        raw = b64url(s)
        assert len(raw) == 64
        sig = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        leaf.public_key().verify(sig, (h + "." + p).encode(), ec.ECDSA(hashes.SHA256()))
        payload = json.loads(b64url(p))
        print(payload.get("productId") or payload.get("notificationType"))
        """#

    private static var pythonHasCryptography: Bool {
        (try? run(["-c", "import cryptography"], input: "")) != nil
    }

    private static func run(_ arguments: [String], input: String) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CrossCheckFailure(message: String(decoding: err, as: UTF8.self))
        }
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private struct CrossCheckFailure: Error { let message: String }

    @Test func pythonCryptographyAcceptsSandboxTransactionsAndNotifications() throws {
        guard Self.pythonHasCryptography else { return }
        let fixture = try StoreFixture()
        let (jws, purchase) = try fixture.purchase("com.trailmap.region.utah")
        #expect(try Self.run(["-c", Self.script], input: jws) == "com.trailmap.region.utah")
        let notification = try fixture.store.signNotification(type: "REFUND", transaction: purchase)
        #expect(try Self.run(["-c", Self.script], input: notification) == "REFUND")
        var p = ForgedJWS.parts(jws)
        p[1] = ForgedJWS.encode("{\"productId\":\"free\"}")
        #expect(throws: (any Error).self) { try Self.run(["-c", Self.script], input: p.joined(separator: ".")) }
    }
}
