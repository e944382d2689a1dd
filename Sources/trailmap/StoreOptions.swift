import ArgumentParser
import Catalog
import StoreVerification
import Foundation
import Logging
import TrailMapServer

extension StoreEnvironment: ExpressibleByArgument {}

/// `trailmap serve`'s store options: the catalog and how signed store data is verified.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The catalog: \(CatalogLocation.help) (default Catalog/catalog.sqlite when it exists; without one the store API is off).")
    var catalog: String?

    @Option(name: .long, help: "A trusted store root certificate, DER or PEM (repeatable; Apple Root CA G3 in production).")
    var storeRootCert: [String] = []

    @Option(name: .long, help: "The app's bundle id that signed transactions must carry.")
    var storeBundleId: String?

    @Option(name: .long, help: "The store environment transactions must come from: Production or Sandbox.")
    var storeEnvironment: StoreEnvironment?

    @Option(
        name: .long,
        help:
            """
            Run a sandbox store from this folder (made by `trailmap store sandbox init`): its root is trusted and POST /api/v1/sandbox/... \
            signs purchases.
            """
    )
    var storeSandbox: String?

    @Option(
        name: .long, help: "Product ids the store offers right now, comma-separated (default: every published product).",
        transform: ProductIDListArgument.parse)
    var availableProducts: ProductIDListArgument?

    @Option(
        name: .long,
        help:
            """
            Megabytes the cut bundles of area quotes not bought yet may take in the tiles folder, all accounts together; beyond it a quote \
            answers 503 until older ones expire.
            """
    )
    var areaQuoteSpace: Int = 2000

    func validate() throws {
        if let c = catalog, case let location = try CatalogLocation(c), !location.exists {
            throw CommandFailure("--catalog \(location) does not exist: run `trailmap catalog publish --catalog \(location)` first")
        }
        if storeSandbox != nil, !storeRootCert.isEmpty {
            throw ValidationError(
                """
                --store-sandbox and --store-root-cert exclude each other: next to a real store's root the sandbox's would be trusted for \
                real purchases (and Sandbox become the environment); run the sandbox store on its own server
                """
            )
        }
        if !storeRootCert.isEmpty, storeBundleId == nil {
            throw ValidationError("--store-root-cert needs --store-bundle-id (the app's bundle id)")
        }
        guard areaQuoteSpace >= 1 && areaQuoteSpace <= 100_000_000 else {
            throw ValidationError("--area-quote-space must be a number of megabytes from 1 to 100000000")
        }
        // Checked before the server starts: a store asked for but missing is a failure (exit 1),
        // not a server that runs without it.
        var isFolder: ObjCBool = false
        if let dir = storeSandbox, !(FileManager.default.fileExists(atPath: dir, isDirectory: &isFolder) && isFolder.boolValue) {
            throw CommandFailure("--store-sandbox \(dir): no such folder: make a sandbox store with `trailmap store sandbox init \(dir)`")
        }
        if let missing = storeRootCert.first(where: { !FileManager.default.fileExists(atPath: $0) }) {
            throw CommandFailure("--store-root-cert \(missing): no such file")
        }
    }

    /// Debug builds only (the tests' binary; never a release): `TRAILMAP_TEST_TILE_TOKEN_LIFETIME=S`
    /// makes tile tokens last S seconds, for the pages' renewal tests.
    static var testTileTokenLifetime: TimeInterval? {
        #if DEBUG
        ProcessInfo.processInfo.environment["TRAILMAP_TEST_TILE_TOKEN_LIFETIME"].flatMap(TimeInterval.init).flatMap { $0 > 0 ? $0 : nil }
        #else
        nil
        #endif
    }

    /// The store settings, or nil when there is no catalog.
    func settings(logger: Logger) async throws -> StoreSettings? {
        let path =
            catalog ?? (FileManager.default.fileExists(atPath: CatalogCommand.defaultDatabase) ? CatalogCommand.defaultDatabase : nil)
        guard let path else {
            logger.notice("no catalog database: the store API is off (run `trailmap catalog publish` to make one)")
            return nil
        }
        let location = try CatalogLocation(path)
        let db = try await location.open(logger: logger)
        logger.info("catalog: \(location)")
        var roots = [Data]()
        for file in storeRootCert { roots += try StoreCertificates.load(path: file) }
        var sandbox: SandboxStore?
        if let dir = storeSandbox {
            let store = try SandboxStore(directory: dir)
            roots.append(store.rootCertificateDER)
            sandbox = store
            logger.warning(
                """
                SANDBOX STORE ON (\(dir)): purchases are signed by a local test key and POST /api/v1/sandbox/... makes them; never run \
                this in production
                """
            )
        }
        let bundleId = storeBundleId ?? sandbox?.bundleId ?? "com.trailmap.app"
        let environment = storeEnvironment ?? sandbox?.environment ?? .production
        let verifier: any StoreVerifying
        if roots.isEmpty {
            logger.warning("no store root certificate (--store-root-cert or --store-sandbox): every purchase will be refused")
            verifier = NoStoreConfigured()
        } else {
            verifier = try SignedDataVerifier(rootCertificates: roots, bundleId: bundleId, environment: environment)
        }
        let available = availableProducts?.ids
        var settings = try StoreSettings(
            catalog: db, verifier: verifier, sandbox: sandbox, availableProducts: available,
            tileTokenLifetime: Self.testTileTokenLifetime ?? 3600)
        settings.maxUnboughtAreaBytes = Int64(areaQuoteSpace) * 1_000_000
        return settings
    }
}

/// Refuses every signed transaction: the server was started without a trusted store root.
struct NoStoreConfigured: StoreVerifying {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "this server trusts no store root certificate; start it with --store-root-cert or --store-sandbox" }
    }
    func verifyPurchase(_ signedTransaction: String) async throws -> StorePurchase { throw Refusal() }
    func verifyConsumable(_ signedTransaction: String) async throws -> StorePurchase { throw Refusal() }
    func verifyEvent(_ signedPayload: String) async throws -> StoreEvent { throw Refusal() }
}
