import Testing
@testable import TileCache

@Suite struct TileCacheModuleTests {
    @Test func moduleLinks() { #expect(String(describing: TileCacheModule.self) == "TileCacheModule") }
}
