import Foundation
import Testing
@testable import TrailMapServer

@Suite struct JSONWriterTests {
    @Test func writesWhatFoundationReadsBack() throws {
        let value: [String: Any] = [
            "b": true, "f": false, "i": 42, "n": -7, "big": Int64(1) << 40, "d": -109.06, "whole": 41.0,
            "s": "quote \" backslash \\ newline \n tab \t bell \u{07} é 🏔 </script>",
            "a": [1, "two", ["three": 3], [Any]()], "o": [String: Any](),
        ]
        let bytes = JSONWriter.bytes(value)
        let back = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(back["b"] as? Bool == true && back["f"] as? Bool == false)
        #expect(back["i"] as? Int == 42 && back["n"] as? Int == -7 && back["big"] as? Int == 1 << 40)
        #expect(back["d"] as? Double == -109.06 && back["whole"] as? Double == 41)
        #expect(back["s"] as? String == value["s"] as? String)
        #expect((back["a"] as? [Any])?.count == 4)
        #expect((back["o"] as? [String: Any])?.isEmpty == true)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("{\"a\":[1,\"two\",{\"three\":3},[]],\"b\":true,\"big\":1099511627776,"))
        #expect(text.contains("\"b\":true") && !text.contains("\"b\":1"))
        #expect(text.contains("\\u0007"))
    }
}
