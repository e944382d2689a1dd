import Catalog
import Foundation
import GRDB

extension CatalogDatabase {
    /// Every published product (regions and area products; no account's bought areas), ordered by category and title.
    public func products() throws(CatalogError) -> [Product] {
        try read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM products WHERE owner IS NULL ORDER BY category, title")).map(
                Product.init(row:))
        }
    }

    /// One product, or nil.
    public func product(id: String) throws(CatalogError) -> Product? {
        try read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM products WHERE id = ?"), arguments: [id]).map(Product.init(row:))
        }
    }

    /// The product a tileset belongs to, or nil.
    public func product(tileset: String) throws(CatalogError) -> Product? {
        try read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM products WHERE tileset = ?"), arguments: [tileset]).map(
                Product.init(row:))
        }
    }

    /// The category tree of the published products.
    public func categoryTree() throws(CatalogError) -> [CategoryNode] {
        let rows = try read { db in try Row.fetchAll(try db.cachedStatement(sql: "SELECT path, name, parent FROM categories ORDER BY path"))
        }
        return ListingRules.categoryTree(rows.map { ($0["path"], $0["name"], $0["parent"]) })
    }

    /// Products with the caller's status (bought areas to their owner only). `available` is the store's list of product ids ready for
    /// sale (nil: all published products). Without an account every paid product is for sale.
    public func listing(
        account: Account?, deviceID: String?, available: Set<String>?,
        only productID: String? = nil
    ) throws(CatalogError) -> [ListedProduct] {
        try read { db in
            // Everyone's products and the caller's own areas.
            var products = try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT * FROM products WHERE owner IS NULL OR owner = ? ORDER BY category, title
                        """), arguments: [account?.id]
            ).map(Product.init(row:))
            if let productID { products = products.filter { $0.id == productID } }
            var ownedRows = [(productID: String, status: Entitlement.Status)]()
            var installed = [String: (Int, InstallStatus)]()
            if let account {
                for r in try Row.fetchAll(
                    try db.cachedStatement(sql: "SELECT product_id, status FROM entitlements WHERE account_id = ?"), arguments: [account.id]
                ) {
                    ownedRows.append((r["product_id"], try Entitlement.Status(stored: r["status"])))
                }
                if let deviceID {
                    try checkDevice(db, id: deviceID, account: account)
                    for r in try Row.fetchAll(
                        try db.cachedStatement(sql: "SELECT product_id, version, status FROM installs WHERE device_id = ?"),
                        arguments: [deviceID])
                    {
                        installed[r["product_id"]] = (r["version"], try InstallStatus(stored: r["status"]))
                    }
                }
            }
            let owned = ListingRules.owned(ownedRows)
            return products.map { p in
                let inst = installed[p.id]
                let status = ListingRules.status(p, owned: owned[p.id], installed: inst, available: available)
                return ListedProduct(product: p, status: status, installedVersion: inst?.0)
            }
        }
    }
}
