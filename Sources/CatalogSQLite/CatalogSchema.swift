import Catalog
import GRDB

/// The catalog's tables, created and upgraded by GRDB migrations: a new migration is appended
/// (never an old one edited), so an existing catalog database upgrades when it is next opened.
enum CatalogSchema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE settings(name TEXT PRIMARY KEY, value BLOB NOT NULL);
                    CREATE TABLE categories(
                        path TEXT PRIMARY KEY, name TEXT NOT NULL, parent TEXT REFERENCES categories(path));
                    CREATE TABLE products(
                        id TEXT PRIMARY KEY, title TEXT NOT NULL, category TEXT NOT NULL REFERENCES categories(path),
                        description TEXT NOT NULL, price_amount TEXT NOT NULL, price_currency TEXT NOT NULL,
                        free INTEGER NOT NULL, tileset TEXT NOT NULL UNIQUE, bundle_path TEXT NOT NULL,
                        version INTEGER NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
                        min_zoom INTEGER NOT NULL, max_zoom INTEGER NOT NULL,
                        west REAL NOT NULL, south REAL NOT NULL, east REAL NOT NULL, north REAL NOT NULL,
                        published_at REAL NOT NULL);
                    CREATE TABLE product_versions(
                        product_id TEXT NOT NULL REFERENCES products(id), version INTEGER NOT NULL,
                        sha256 TEXT NOT NULL, size INTEGER NOT NULL, published_at REAL NOT NULL,
                        PRIMARY KEY(product_id, version));
                    CREATE TABLE accounts(
                        id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        password_hash TEXT NOT NULL, app_account_token TEXT NOT NULL UNIQUE, created_at REAL NOT NULL);
                    CREATE TABLE sessions(
                        token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
                        created_at REAL NOT NULL, expires_at REAL NOT NULL);
                    CREATE INDEX sessions_account ON sessions(account_id);
                    CREATE TABLE devices(
                        id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id),
                        name TEXT NOT NULL, created_at REAL NOT NULL);
                    CREATE TABLE transactions(
                        transaction_id TEXT PRIMARY KEY, original_transaction_id TEXT NOT NULL,
                        account_id TEXT NOT NULL REFERENCES accounts(id), product_id TEXT NOT NULL,
                        purchase_date REAL NOT NULL, environment TEXT NOT NULL, recorded_at REAL NOT NULL);
                    CREATE TABLE entitlements(
                        original_transaction_id TEXT PRIMARY KEY,
                        account_id TEXT NOT NULL REFERENCES accounts(id), product_id TEXT NOT NULL REFERENCES products(id),
                        status TEXT NOT NULL CHECK(status IN ('active', 'revoked')), reason TEXT,
                        granted_at REAL NOT NULL, updated_at REAL NOT NULL);
                    CREATE INDEX entitlements_account ON entitlements(account_id, product_id);
                    CREATE TABLE installs(
                        device_id TEXT NOT NULL REFERENCES devices(id), product_id TEXT NOT NULL REFERENCES products(id),
                        version INTEGER NOT NULL, status TEXT NOT NULL CHECK(status IN ('installed', 'revoked')),
                        updated_at REAL NOT NULL, PRIMARY KEY(device_id, product_id));
                    CREATE TABLE notifications(
                        notification_uuid TEXT PRIMARY KEY, type TEXT NOT NULL, subtype TEXT,
                        original_transaction_id TEXT, received_at REAL NOT NULL);
                    CREATE TABLE audit_log(
                        id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, account_id TEXT, product_id TEXT,
                        original_transaction_id TEXT, action TEXT NOT NULL, reason TEXT NOT NULL);
                    CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
                        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
                    CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
                        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
                    """)
        }
        // Levels of detail: each product keeps its bundle's `trailmap:layers` (JSON, lower first);
        // products published before this have none until they are published again.
        m.registerMigration("v2-product-layers") { db in
            try db.execute(sql: "ALTER TABLE products ADD COLUMN layers_json TEXT NOT NULL DEFAULT '[]'")
        }
        // Refund ordering: notifications keep the store's signedDate (REFUND and REFUND_REVERSED
        // apply in that order, not arrival order) and the transaction's revocationDate; rows from
        // before this migration order as signed at 0, by arrival.
        m.registerMigration("v3-notification-order") { db in
            try db.execute(
                sql: """
                    ALTER TABLE notifications ADD COLUMN signed_at REAL NOT NULL DEFAULT 0;
                    ALTER TABLE notifications ADD COLUMN revocation_at REAL;
                    CREATE INDEX notifications_transaction ON notifications(original_transaction_id, signed_at);
                    """)
        }
        // Tile-token keys rotate: each signs for a while, then only verifies until the tokens
        // it signed have expired. The single key of earlier versions is dropped (its tokens
        // lived an hour at most).
        m.registerMigration("v4-tile-token-keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tile_token_keys(id INTEGER PRIMARY KEY AUTOINCREMENT, secret BLOB NOT NULL, created_at REAL NOT NULL);
                    DELETE FROM settings WHERE name = 'tile-token-key';
                    """)
        }
        // Areas on demand: area products (kind 'area_product', terms in area_json) and bought
        // areas (kind 'area', listed to their owner only) are products; quotes wait for a purchase.
        m.registerMigration("v5-areas") { db in
            try db.execute(
                sql: """
                    ALTER TABLE products ADD COLUMN kind TEXT NOT NULL DEFAULT 'region';
                    ALTER TABLE products ADD COLUMN owner TEXT REFERENCES accounts(id);
                    ALTER TABLE products ADD COLUMN area_json TEXT;
                    CREATE INDEX products_owner ON products(owner);
                    \(AreaSchema.quotesTable(real: "REAL", integer: "INTEGER"));
                    CREATE INDEX area_quotes_account ON area_quotes(account_id, created_at);
                    CREATE INDEX area_quotes_expiry ON area_quotes(expires_at);
                    """)
        }
        return m
    }
}
