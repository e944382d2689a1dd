import Foundation
import Testing
import TrailMapTestSupport
@testable import TrailRendering

/// The style as a manifest gives it.
@Suite(.computeThreads) struct TrailStyleCodingTests {
    @Test func aPartialManifestStyleKeepsTheDefaults() throws {
        let json =
            ##"{"colors": {"hard": "#aa0011"}, "lineWidth": [{"zoom": 16, "value": 6}, {"zoom": 10, "value": 1}], "labelMinZoom": 15}"##
        let style = try JSONDecoder().decode(TrailStyle.self, from: Data(json.utf8))
        #expect(style.color(for: .hard) == TrailColor(red: 0xaa, green: 0, blue: 0x11))
        #expect(style.color(for: .easy) == TrailStyle.defaultColors[.easy])
        #expect(style.labelMinZoom == 15)
        #expect(style.lineWidth.value(at: 13) == 3.5)
        #expect(style.lineWidth.value(at: 4) == 1 && style.lineWidth.value(at: 20) == 6)
        #expect(style.font == TrailStyle().font)
        let again = try JSONDecoder().decode(TrailStyle.self, from: JSONEncoder().encode(style))
        #expect(again == style)
    }

    @Test func badColoursAndUnknownDifficultiesAreDecodingErrors() {
        #expect(TrailColor(hex: "#12345") == nil)
        #expect(TrailColor(hex: "#zzzzzz") == nil)
        #expect(TrailColor(hex: "#11223344") == TrailColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TrailStyle.self, from: Data(#"{"casingColor": "white"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TrailStyle.self, from: Data(##"{"colors": {"extreme": "#000000"}}"##.utf8))
        }
    }
}
