import Catalog
import Essentials
import Foundation
import Logging
import Synchronization
import TileGeometry
import TileStore
import TrailMapAPI

/// Quotes areas: picks the area product for a place, fits the area to its cap, cuts the area
/// bundle at once (so the quoted size is the file's exact size) and keeps the quote in the
/// catalog until it is bought or expires. Cut files live in `TILES/.trailmap-areas/`; a bought
/// quote's file becomes the area's bundle.
public final class AreaQuoting: Sendable {
    public let catalog: any CatalogStore
    public let tilesDirectory: String
    /// Where quotes' and areas' bundles are written.
    public let areasDirectory: String
    /// How long a quote may be bought.
    public let lifetime: TimeInterval
    /// Cuts running at once; more wait their turn (`QuoteAdmission`).
    public var maxConcurrentCuts: Int { admission.limits.maxConcurrentCuts }
    /// Bytes the cut bundles of unbought quotes may take on disk, all accounts together: a quote
    /// that could pass it answers `quotesFull` until older quotes expire or are bought. Each
    /// account and each address may fill only a share of it (`QuoteSpace`).
    public let maxUnboughtBytes: Int64
    private let admission: QuoteAdmission
    private let space: QuoteSpace
    private let logger: Logger
    /// Told of each saved quote's bundle: its path, its file identity while it was hashed, and
    /// its SHA-256 (the server's download check then need not hash it again).
    private let cut: @Sendable (_ path: String, _ identity: FileStat, _ sha256: String) -> Void

    public init(
        catalog: any CatalogStore, tilesDirectory: String, lifetime: TimeInterval = 900, maxConcurrentCuts: Int = 2,
        maxUnboughtBytes: Int64 = 2_000_000_000, fairness: AreaQuoteFairness = AreaQuoteFairness(),
        logger: Logger = Logger(label: "trailmap.areas"),
        cut: @escaping @Sendable (_ path: String, _ identity: FileStat, _ sha256: String) -> Void = { _, _, _ in }
    ) {
        self.catalog = catalog
        self.tilesDirectory = tilesDirectory
        areasDirectory = (tilesDirectory as NSString).appendingPathComponent(".trailmap-areas")
        self.lifetime = lifetime
        self.maxUnboughtBytes = max(0, maxUnboughtBytes)
        admission = QuoteAdmission(
            limits: .init(
                maxConcurrentCuts: maxConcurrentCuts, perAddressInFlight: fairness.perAddressInFlight,
                perAccountPerWindow: fairness.quotesPerAccount, perAddressPerWindow: fairness.quotesPerAddress,
                window: fairness.window))
        space = QuoteSpace(total: max(0, maxUnboughtBytes), fairness: fairness)
        self.logger = logger
        self.cut = cut
    }

    /// A quote for `request` by `account` from client `address` (nil: a local caller), among the
    /// area products `available` (nil: all). Returns the quote, its area product and, when the
    /// top zoom was lowered, why.
    public func quote(
        _ request: AreaQuoteRequest, account: Account, address: String? = nil, available: Set<String>? = nil,
        now: Date = Date()
    ) async throws(AreaError) -> (quote: AreaQuoteRecord, product: Product, message: String?) {
        let shape = try AreaShape(request: request)
        if let lo = request.minzoom, let hi = request.maxzoom, lo > hi { throw .invalidRequest("minzoom must not be above maxzoom") }
        await sweep(now: now)
        let products: [Product]
        do { products = try await catalog.products() } catch { throw .catalog(error) }
        var offers = products.filter { $0.kind == .areaProduct && $0.areaOffer != nil && (available?.contains($0.id) ?? true) }
        if let id = request.productId {
            offers = offers.filter { $0.id == id }
            if offers.isEmpty {
                throw products.contains { $0.id == id } ? .notAnAreaProduct(id) : .catalog(.unknownProduct(id))
            }
        }
        let ticket = try await admission.enter(account: account.id, address: address, now: now)
        defer { admission.leave(ticket) }
        // The cut may take up to its product's cap; the quotes waiting already take theirs.
        let waiting: Int64, mine: Int64
        do {
            waiting = try await catalog.unboughtAreaQuoteBytes(accountID: nil)
            mine = try await catalog.unboughtAreaQuoteBytes(accountID: account.id)
        } catch { throw .catalog(error) }
        let largest = offers.map { $0.areaOffer?.maxBytes ?? $0.size }.max() ?? 0
        if let refusal = space.refusal(waiting: waiting, account: mine, address: space.held(by: address, now: now), largest: largest) {
            logger.warning(
                """
                area quote for \(account.id) refused: \(refusal.code) (unbought quotes hold \(waiting) bytes of \(maxUnboughtBytes), this \
                account's \(mine))
                """
            )
            throw refusal
        }
        let directory = tilesDirectory, areas = areasDirectory, id = AreaQuoteRecord.newID()
        let job = QuoteJob(
            shape: shape, request: request, offers: offers, regions: products.filter { $0.kind == .region && !$0.free },
            directory: directory, output: (areas as NSString).appendingPathComponent("\(id).mbtiles"))
        let made = try await Self.offThread { () throws(AreaError) in try job.run() }
        let record = AreaQuoteRecord(
            id: id, accountId: account.id, productId: made.offer.id, title: made.title,
            bundlePath: job.output, size: made.size, sha256: made.sha256, tiles: made.tiles,
            minZoom: made.plan.zooms.lowerBound, maxZoom: made.plan.zooms.upperBound,
            requestedMaxZoom: made.plan.requestedMaxZoom, bounds: made.plan.bounds, createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime))
        do {
            let dropped = try await catalog.saveAreaQuote(record, keepPerAccount: 8)
            remove(dropped)
        } catch {
            remove([job.output])
            throw .catalog(error)
        }
        space.record(id: id, bytes: record.size, address: address, until: record.expiresAt)
        if let identity = made.identity { cut(job.output, identity, made.sha256) }
        logger.info("quote \(id) for \(account.id): \(made.offer.id), zooms \(record.minZoom)-\(record.maxZoom), \(record.size) bytes")
        return (record, made.offer, Self.message(record, made.offer))
    }

    /// A quote was bought: its bytes no longer count against the address it was cut for.
    public func bought(quoteID: String) {
        space.forget(id: quoteID)
    }

    /// What a quote says when it differs from its request (its top zoom lowered to fit the cap), or nil.
    public static func message(_ q: AreaQuoteRecord, _ offer: Product) -> String? {
        guard q.maxZoom < q.requestedMaxZoom else { return nil }
        return
            """
            The top zoom was lowered from \(q.requestedMaxZoom) to \(q.maxZoom) to fit \(offer.title)'s cap of \
            \(ByteText.of(offer.areaOffer?.maxBytes ?? offer.size)).
            """
    }

    /// Deletes the bundles of unbought quotes that expired a minute or more before `now`.
    public func sweep(now: Date = Date()) async {
        do { remove(try await catalog.removeExpiredAreaQuotes(before: now.addingTimeInterval(-60))) } catch {
            logger.warning("expired area quotes were not cleaned up: \(error)")
        }
    }

    /// Deletes files of dropped quotes, only inside the areas folder.
    private func remove(_ paths: [String]) {
        for p in paths where (p as NSString).deletingLastPathComponent == areasDirectory {
            try? FileManager.default.removeItem(atPath: p)
        }
    }

    /// Runs blocking file work on a thread of its own, off the concurrency pool.
    private static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws(AreaError) -> T) async throws(AreaError) -> T {
        let result: Result<T, AreaError> = await withCheckedContinuation { c in
            Thread.detachNewThread {
                do throws(AreaError) { c.resume(returning: .success(try body())) } catch { c.resume(returning: .failure(error)) }
            }
        }
        return try result.get()
    }
}

/// Sizes for people, e.g. `10 MB`.
enum ByteText {
    static func of(_ n: Int64) -> String {
        n >= 1_000_000
            ? String(format: "%.1f MB", Double(n) / 1_000_000).replacingOccurrences(of: ".0 MB", with: " MB")
            : String(format: "%.0f kB", Double(n) / 1000)
    }
}
