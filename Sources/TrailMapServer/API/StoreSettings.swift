import Areas
import BundlePatch
import Catalog
import Foundation

/// The store side of the server: the catalog database and how signed store data is verified.
public struct StoreSettings: Sendable {
    public var catalog: any CatalogStore
    public var verifier: any StoreVerifying
    /// Present when the server runs a sandbox store (`--store-sandbox DIR`).
    public var sandbox: (any SandboxSigning)?
    /// The store's product ids ready for sale; nil: every published product.
    public var availableProducts: Set<String>?
    /// Tilesets served to everyone although no free product sells them (a tileset no product
    /// sells, or only areas cut from, is otherwise closed).
    public var publicTilesets: Set<String> = []
    /// Largest accepted request body.
    public var maxBodyBytes: Int = 64 * 1024
    /// Where logins and registrations hash passwords: threads of its own, a bounded queue.
    public var passwordHashing: KeyDerivationPool = .shared
    /// Patches between published versions (made by `trailmap catalog publish`); nil: none offered.
    public var patches: PatchStore?
    /// Bytes the cut bundles of unbought area quotes may take, all accounts together
    /// (`AreaQuoting.maxUnboughtBytes`).
    public var maxUnboughtAreaBytes: Int64 = 2_000_000_000
    /// How area quoting is shared between accounts and addresses (in flight, rates, space shares).
    public var areaQuoteFairness = AreaQuoteFairness()
    /// Signs and checks tile tokens (`?token=`) with rotating keys kept in the catalog.
    public let tileTokens: TileTokens

    /// `tileTokenLifetime`: how long a tile token lasts (seconds).
    public init(
        catalog: any CatalogStore, verifier: any StoreVerifying, sandbox: (any SandboxSigning)? = nil,
        availableProducts: Set<String>? = nil, tileTokenLifetime: TimeInterval = 3600
    ) throws(CatalogError) {
        self.catalog = catalog
        tileTokens = TileTokens(catalog: catalog, lifetime: tileTokenLifetime)
        self.verifier = verifier
        self.sandbox = sandbox
        self.availableProducts = availableProducts
    }
}
