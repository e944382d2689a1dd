import Foundation
import Testing
import TrailMapTestSupport

/// One unit convention for sizes: the API gives bytes, and the store page and the CLI write the
/// same bytes as the same text (1 KB = 1024 bytes, one decimal, a tie rounded up), to the byte,
/// for caps chosen on the rounding edges (1.25 MB exactly, 3.75 MB, 65.25 KB, 1023.999 KB) and a
/// region's bundle.
@Suite(.serialized, .blockingThreads) struct SizeUnitsBrowserTests {
    /// The convention, in integers: bytes in the largest unit of 1024 they reach, tenths rounded half up.
    static func expected(_ bytes: Int) -> String {
        var (unit, divisor) = (0, 1)
        while bytes >= divisor * 1024 && unit < 4 { (unit, divisor) = (unit + 1, divisor * 1024) }
        if unit == 0 { return "\(bytes) B" }
        let tenths = (bytes * 20 + divisor) / (2 * divisor)
        return "\(tenths / 10).\(tenths % 10) \(["B", "KB", "MB", "GB", "TB"][unit])"
    }

    /// The first size in `text` ("3.9 MB", "512 B").
    static func firstSize(_ text: String) -> String? {
        guard let r = text.range(of: #"[0-9]+(\.[0-9])? (B|KB|MB|GB|TB)\b"#, options: .regularExpression) else { return nil }
        return String(text[r])
    }

    @Test func expectedRoundsTiesUp() {
        #expect(Self.expected(1_310_720) == "1.3 MB" && Self.expected(66_816) == "65.3 KB" && Self.expected(1023) == "1023 B")
        #expect(Self.expected(1_048_575) == "1024.0 KB" && Self.expected(4_089_446) == "3.9 MB")
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func apiPageAndCLIAgreeToTheByte() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let store = try AreaCommandsTests.AreaStore()
        defer { store.stop() }
        let caps = [1_310_720, 3_932_160, 66_816, 1_048_575, 4_089_446]
        var products: [[String: Any]] = [
            [
                "productId": AreaCommandsTests.region, "title": "Test Colorado", "category": "States/Colorado",
                "price": ["amount": "4.99", "currency": "USD"], "bundle": "co.mbtiles"
            ]
        ]
        for (i, cap) in caps.enumerated() {
            products.append([
                "productId": "com.test.size\(i)", "title": "Cap \(cap)", "category": "Areas",
                "price": ["amount": "0.99", "currency": "USD"], "area": ["maxBytes": cap, "from": ["co.mbtiles"]]
            ])
        }
        try store.publish(products)
        let ids = [AreaCommandsTests.region] + caps.indices.map { "com.test.size\($0)" }

        // The API's bytes.
        let browser = try DevToolsPipe(chromium: chromium, profile: store.dir.file("profile"))
        try browser.open(store.url + "/store")
        try browser.wait("document.querySelectorAll('.card[data-id^=\"com.test.size\"]').length === \(caps.count)", seconds: 10)
        let listed = try #require(
            try browser.evaluate("fetch('/api/v1/catalog').then(r => r.json()).then(c => c.products)") as? [[String: Any]])
        var bytes: [String: Int] = [:]
        for p in listed {
            guard let id = p["productId"] as? String else { continue }
            bytes[id] = ((p["area"] as? [String: Any])?["maxBytes"] as? Int) ?? (p["size"] as? Int)
        }

        // The CLI's list.
        let phone = RegionsEndToEndTests.Device(
            state: store.dir.file("phone/state"), tiles: store.dir.file("phone/Tiles"), server: store.url)
        #expect(try phone.run(["account", "register"] + AreaCommandsTests.login).status == 0)
        let list = try phone.run(["regions", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        for id in ids {
            let api = try #require(bytes[id], "\(id) is not in the API's catalog")
            let line = list.stdout.split(separator: "\n").first { $0.hasPrefix(id + " ") }.map(String.init) ?? ""
            let card = try browser.evaluate("document.querySelector('.card[data-id=\"\(id)\"]').textContent") as? String ?? ""
            let cli = Self.firstSize(line), page = Self.firstSize(card)
            #expect(
                cli == Self.expected(api) && page == Self.expected(api),
                "\(id), \(api) bytes: CLI \(cli ?? "none") (\(line)), page \(page ?? "none") (\(card)), expected \(Self.expected(api))")
        }
    }
}
