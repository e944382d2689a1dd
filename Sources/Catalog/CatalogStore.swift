import Foundation

/// Every catalog operation the server and the CLI use, behind one interface: `CatalogDatabase`
/// (`CatalogSQLite`, the embedded default) and `PostgresCatalog` (`CatalogPostgres`, deployments
/// of several servers) implement it. It is the composition of one protocol per aggregate:
/// `AccountStore` (accounts, sessions, devices), `ProductStore` (products, listings, publishing),
/// `PurchaseStore` (purchases, entitlements, installs, notifications, the audit log),
/// `AreaQuoteStore` (areas on demand) and `TileTokenKeyStore`. Requirements are `async` so that a
/// networked backend never blocks a thread; SQLite's synchronous methods satisfy them.
///
/// Shared state lives behind it, not in a server process.
public protocol CatalogStore: AccountStore, ProductStore, PurchaseStore, AreaQuoteStore, TileTokenKeyStore {}
