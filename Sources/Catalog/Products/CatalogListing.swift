import Foundation
import GRDB
import TrailMapAPI

/// A product's state for one caller, as the store shows it: the API contract's own type.
public typealias ProductStatus = TrailMapAPI.ProductStatus

/// A product with the caller's status.
public struct ListedProduct: Sendable, Equatable {
    public var product: Product
    public var status: ProductStatus
    /// The version installed on the caller's device, if any.
    public var installedVersion: Int?
}

extension CatalogDatabase {
    /// Every published product, ordered by category and title.
    public func products() throws(CatalogError) -> [Product] {
        try read { db in try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM products ORDER BY category, title")).map(Product.init(row:)) }
    }

    /// One product, or nil.
    public func product(id: String) throws(CatalogError) -> Product? {
        try read { db in try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM products WHERE id = ?"), arguments: [id]).map(Product.init(row:)) }
    }

    /// The product a tileset belongs to, or nil.
    public func product(tileset: String) throws(CatalogError) -> Product? {
        try read { db in try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM products WHERE tileset = ?"), arguments: [tileset]).map(Product.init(row:)) }
    }

    /// The category tree of the published products.
    public func categoryTree() throws(CatalogError) -> [CategoryNode] {
        let rows = try read { db in try Row.fetchAll(try db.cachedStatement(sql: "SELECT path, name, parent FROM categories ORDER BY path")) }
        var children = [String: [(String, String)]]()
        for r in rows {
            let parent: String? = r["parent"]
            children[parent ?? "", default: []].append((r["path"], r["name"]))
        }
        func build(_ parent: String, depth: Int) -> [CategoryNode] {
            guard depth < 8 else { return [] }
            return (children[parent] ?? []).map { CategoryNode(name: $0.1, path: $0.0, children: build($0.0, depth: depth + 1)) }
        }
        return build("", depth: 0)
    }

    /// Products with the caller's status. `available` is the store's list of product ids ready for
    /// sale (nil: all published products). Without an account every paid product is for sale.
    public func listing(account: Account?, deviceID: String?, available: Set<String>?,
                        only productID: String? = nil) throws(CatalogError) -> [ListedProduct] {
        try read { db in
            var products = try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM products ORDER BY category, title")).map(Product.init(row:))
            if let productID { products = products.filter { $0.id == productID } }
            var owned = [String: String]()
            var installed = [String: (Int, String)]()
            if let account {
                for r in try Row.fetchAll(try db.cachedStatement(sql: "SELECT product_id, status FROM entitlements WHERE account_id = ?"), arguments: [account.id]) {
                    let id: String = r["product_id"], status: String = r["status"]
                    if owned[id] != "active" { owned[id] = status }
                }
                if let deviceID {
                    try checkDevice(db, id: deviceID, account: account)
                    for r in try Row.fetchAll(try db.cachedStatement(sql: "SELECT product_id, version, status FROM installs WHERE device_id = ?"), arguments: [deviceID]) {
                        installed[r["product_id"]] = (r["version"], r["status"])
                    }
                }
            }
            return products.map { p in
                let inst = installed[p.id]
                var status: ProductStatus
                switch (p.free, owned[p.id]) {
                case (_, "revoked"?) where !p.free: status = .revoked
                case (true, _): status = .free
                case (false, "active"?): status = .purchased
                default: status = available.map { $0.contains(p.id) } ?? true ? .forSale : .unavailable
                }
                if let (version, state) = inst, status == .purchased || status == .free {
                    status = state == "revoked" ? .revoked : version < p.version ? .updateAvailable : .installed
                }
                return ListedProduct(product: p, status: status, installedVersion: inst?.0)
            }
        }
    }
}
