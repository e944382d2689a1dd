import Testing
@testable import TrailMapServer

/// The fast path's split of a tile path into its five components (held inline, `TilePath`).
@Suite struct TilePathTests {
    @Test func aTilePathSplitsIntoItsFiveComponentsWithoutItsQuery() throws {
        let path = try #require(TileRequestParsing.tilePath("/tiles/co-x/10/512/300.webp?token=a/b"))
        #expect(Array(path) == ["tiles", "co-x", "10", "512", "300.webp"])
        #expect(path.count == 5)
        #expect(path.description == "/tiles/co-x/10/512/300.webp")
        // Empty components are kept as they are (the responder refuses them).
        #expect(TileRequestParsing.tilePath("/tiles//1//0.png").map(Array.init) == ["tiles", "", "1", "", "0.png"])
    }

    @Test(arguments: [
        "/tiles/co/1/0", "/tiles/co/1/0/0/0.png", "/tile/co/1/0/0.png", "/tiles", "/", "tiles/co/1/0/0.png",
        "/tiles/co/1/0/0.png/", "/tiles/co/1/0?/0.png", "/tiles/" + String(repeating: "a", count: 2048) + "/1/0/0.png"
    ])
    func anotherPathIsNoTilePath(_ uri: String) {
        #expect(TileRequestParsing.tilePath(uri) == nil)
    }

    @Test func aPathOfFiveComponentsOnlyIsMadeFromAList() throws {
        let parts: [Substring] = ["tiles", "world", "3", "2", "1.png"]
        let path = try #require(TilePath(parts))
        #expect(path[1] == "world" && path[4] == "1.png")
        #expect(TilePath(parts.dropLast()) == nil)
        #expect(TilePath(parts + ["x"]) == nil)
        #expect(Array(TilePath("tiles", "w", "0", "0", "0.png")) == ["tiles", "w", "0", "0", "0.png"])
    }
}
