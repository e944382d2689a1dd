import Catalog
import Foundation
import Logging
import Synchronization
import Trails
import TrailMapAPI

/// The open trail indexes of the published region bundles, one per bundle file: reopened when
/// the file is replaced (a new version published), closed when no product names it any more.
final class TrailShelf: Sendable {
    private struct Entry {
        var identity: FileIdentity
        /// nil: the bundle holds no trails (or they cannot be read; logged once).
        var index: TrailIndex?
    }

    private let open = Mutex<[String: Entry]>([:])
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The region products of `products` whose bundles hold trails, with their indexes.
    func indexes(of products: [Product]) -> [(product: Product, index: TrailIndex)] {
        var out = [(product: Product, index: TrailIndex)]()
        var seen = Set<String>()
        for p in products where p.kind == .region {
            seen.insert(p.bundlePath)
            guard let identity = FileIdentity(path: p.bundlePath) else { continue }
            let cached = open.withLock { $0[p.bundlePath] }
            let entry: Entry
            if let cached, cached.identity == identity {
                entry = cached
            } else {
                var index: TrailIndex?
                do throws(TrailStoreError) { index = try TrailIndex(bundle: p.bundlePath) } catch {
                    if case .noTrails = error {} else { logger.warning("trails of \(p.id) cannot be read: \(error)") }
                }
                entry = Entry(identity: identity, index: index)
                open.withLock { $0[p.bundlePath] = entry }
            }
            if let index = entry.index { out.append((p, index)) }
        }
        open.withLock { m in m = m.filter { seen.contains($0.key) } }
        return out
    }
}
