import Testing
@testable import Catalog

@Suite struct CatalogModuleTests {
    @Test func moduleLinks() { #expect(String(describing: CatalogModule.self) == "CatalogModule") }
}
