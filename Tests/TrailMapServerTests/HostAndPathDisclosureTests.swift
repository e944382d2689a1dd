import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Hardening round 3, findings 6 and 7: answers are built from the server's configuration, never
/// from the request's Host header, and never name where the server keeps its files.
@Suite struct HostAndPathDisclosureTests {
    let fixture = ServerFixture()

    func app(publicURL: String? = nil) -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.publicURL = publicURL
        return TileServer.makeApplication(config: config)
    }

    static let evilHost: HTTPFields = [HTTPField.Name("Host")!: "evil.example"]

    @Test func aForgedHostHeaderIsNotEchoedIntoTileJSONListsOrWMTS() async throws {
        try fixture.bundle("co")
        try await app().test(.live) { client in
            for uri in ["/tiles/co.json", "/tiles", "/wmts/1.0.0/WMTSCapabilities.xml", "/wmts?service=WMTS&request=GetCapabilities"] {
                let r = try await client.execute(uri: uri, method: .get, headers: Self.evilHost)
                #expect(r.status == .ok, "\(uri)")
                #expect(!String(buffer: r.body).contains("evil.example"), "\(uri) echoes the Host header")
            }
            // Without a public URL, TileJSON's tile URLs are relative to the server.
            let doc = try #require(
                TileRoutesTests.json(try await client.execute(uri: "/tiles/co.json", method: .get, headers: Self.evilHost).body))
            #expect((doc["tiles"] as? [String])?.first == "/tiles/co/{z}/{x}/{y}.png")
        }
    }

    @Test func aConfiguredPublicURLPrefixesEveryAbsoluteURL() async throws {
        try fixture.bundle("co")
        try await app(publicURL: PublicOrigin.normalized("https://maps.example.com/")).test(.live) { client in
            let doc = try #require(
                TileRoutesTests.json(try await client.execute(uri: "/tiles/co.json", method: .get, headers: Self.evilHost).body))
            #expect((doc["tiles"] as? [String])?.first == "https://maps.example.com/tiles/co/{z}/{x}/{y}.png")
            let caps = String(
                buffer: try await client.execute(uri: "/wmts/1.0.0/WMTSCapabilities.xml", method: .get, headers: Self.evilHost).body)
            #expect(caps.contains("template=\"https://maps.example.com/wmts/1.0.0/co/") && !caps.contains("evil.example"))
        }
    }

    @Test func publicURLsAreValidated() {
        #expect(PublicOrigin.normalized("https://maps.example.com/") == "https://maps.example.com")
        #expect(PublicOrigin.normalized("http://127.0.0.1:8080/maps") == "http://127.0.0.1:8080/maps")
        for bad in [
            "maps.example.com", "ftp://maps.example.com", "https://", "https://a.example/?x=1", "https://a.example/#f",
            "https://u:p@a.example", "https://a.example/\"><script>", "https://a .example"
        ] {
            #expect(PublicOrigin.normalized(bad) == nil, "\(bad)")
        }
    }

    @Test func aBundleThatCannotBeOpenedIsReportedWithoutServerPaths() async throws {
        try fixture.bundle("co")
        try Data(repeating: 7, count: 8192).write(to: URL(fileURLWithPath: fixture.dir.file("broken.mbtiles")))
        let folder = fixture.dir.path
        try await app().test(.live) { client in
            for uri in ["/tiles", "/tiles/broken.json", "/tiles/broken/2/0/1.png"] {
                let r = try await client.execute(uri: uri, method: .get)
                let body = String(buffer: r.body)
                #expect(!body.contains(folder) && !body.contains("/proc/self") && !body.contains("/tmp"), "\(uri): \(body)")
                if uri != "/tiles" { #expect(r.status == .serviceUnavailable && body.contains("tileset_unavailable"), "\(uri)") }
            }
            let list = try #require(TileRoutesTests.json(try await client.execute(uri: "/tiles", method: .get).body))
            let broken = (list["tilesets"] as? [[String: Any]])?.first { $0["id"] as? String == "broken" }
            #expect(broken?["status"] as? String == "unavailable" && (broken?["error"] as? String)?.isEmpty == false)
        }
    }

    @Test func pathsInFailuresAreReplacedByTheFileName() {
        let path = "/srv/maps/tiles/co.mbtiles"
        let text = "cannot open \(path): file is not a database (via /proc/self/fd/12)"
        let redacted = Tileset.redactingPaths(text, path: path)
        #expect(redacted == "cannot open co.mbtiles: file is not a database (via co.mbtiles)")
    }
}
