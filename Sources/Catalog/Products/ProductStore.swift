import Foundation

/// Products, their categories and listings, publishing, and the catalog's change stamp, as every
/// catalog backend keeps them (`CatalogStore`).
public protocol ProductStore: Sendable {
    func products() async throws(CatalogError) -> [Product]
    func product(id: String) async throws(CatalogError) -> Product?
    func categoryTree() async throws(CatalogError) -> [CategoryNode]
    func listing(
        account: Account?, deviceID: String?, available: Set<String>?, only productID: String?
    ) async throws(CatalogError) -> [ListedProduct]
    func publish(_ file: ProductFile, tilesDirectory: String) async throws(CatalogError) -> [PublishResult]
    /// Changes whenever the catalog's contents may have changed, written by any process.
    func changeStamp() async throws(CatalogError) -> Int
}
