import Foundation
import TrailMapAPI

/// How the store shows products to a caller, apart from the database: both catalog backends
/// read the rows and call these.
package enum ListingRules {
    /// A product's status for a caller: `owned` is the caller's entitlement status for it
    /// (active wins over revoked), `installed` its install on the caller's device (version and
    /// status), `available` the store's ids for sale (nil: all).
    package static func status(
        _ p: Product, owned: Entitlement.Status?, installed: (Int, InstallStatus)?,
        available: Set<String>?
    ) -> ProductStatus {
        var status: ProductStatus
        switch (p.free, owned) {
        case (_, .revoked?) where !p.free: status = .revoked
        case (true, _): status = .free
        case (false, .active?): status = .purchased
        default: status = available.map { $0.contains(p.id) } ?? true ? .forSale : .unavailable
        }
        if let (version, state) = installed, status == .purchased || status == .free {
            status = state == .revoked ? .revoked : version < p.version ? .updateAvailable : .installed
        }
        return status
    }

    /// The owned map of an account: product id to active when any entitlement is active, else revoked.
    package static func owned(_ rows: [(productID: String, status: Entitlement.Status)]) -> [String: Entitlement.Status] {
        var owned = [String: Entitlement.Status]()
        for r in rows where owned[r.productID] != .active { owned[r.productID] = r.status }
        return owned
    }

    /// The category tree from `(path, name, parent)` rows ordered by path.
    package static func categoryTree(_ rows: [(path: String, name: String, parent: String?)]) -> [CategoryNode] {
        var children = [String: [(String, String)]]()
        for r in rows { children[r.parent ?? "", default: []].append((r.path, r.name)) }
        func build(_ parent: String, depth: Int) -> [CategoryNode] {
            guard depth < 8 else { return [] }
            return (children[parent] ?? []).map { CategoryNode(name: $0.1, path: $0.0, children: build($0.0, depth: depth + 1)) }
        }
        return build("", depth: 0)
    }

    /// The category paths of a product's category, outermost first, with their names and parents
    /// (`States/Colorado`: `States`, then `States/Colorado` under it).
    package static func categoryChain(_ path: String) -> [(path: String, name: String, parent: String?)] {
        let parts = path.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
        var parent: String?
        var chain: [(String, String, String?)] = []
        for i in parts.indices {
            let p = parts[...i].joined(separator: "/")
            chain.append((p, parts[i], parent))
            parent = p
        }
        return chain
    }
}

/// When tile-token keys rotate and go, apart from the database.
package enum TileKeyRules {
    /// Whether the newest key (keys are newest first) is older than `rotateAfter`, or there is none.
    package static func needsNewKey(_ keys: [TileTokenKey], now t: TimeInterval, rotateAfter: TimeInterval) -> Bool {
        keys.first.map { $0.createdAt.timeIntervalSince1970 <= t - rotateAfter } ?? true
    }

    /// The ids of replaced keys past `keep`: keys[i] was replaced when keys[i - 1] was made.
    package static func expired(_ keys: [TileTokenKey], now t: TimeInterval, keep: TimeInterval) -> [Int64] {
        keys.indices.dropFirst().filter { keys[$0 - 1].createdAt.timeIntervalSince1970 < t - keep }.map { keys[$0].id }
    }
}
