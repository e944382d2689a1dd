import Testing
@testable import RegionManager

@Suite struct RegionManagerModuleTests {
    @Test func moduleLinks() { #expect(String(describing: RegionManagerModule.self) == "RegionManagerModule") }
}
