import Catalog
import Logging
import PostgresNIO

/// The PostgreSQL catalog's tables, created and upgraded at open. Each migration runs once, in
/// a transaction, and is recorded in `schema_migrations`; a new one is appended (never an old
/// one edited). The versions follow the SQLite catalog's (`CatalogSchema`): v1 to v4 hold the
/// same tables, v5 the state SQLite keeps in memory and PostgreSQL must share (the login
/// throttle). An advisory lock makes servers starting together migrate once.
enum PostgresSchema {
    /// Each migration: its version and its statements (one statement per query: PostgreSQL's
    /// extended protocol runs one at a time).
    static let migrations: [(version: String, statements: [String])] = [
        (
            "v1",
            [
                "CREATE TABLE settings(name TEXT PRIMARY KEY, value BYTEA NOT NULL)",
                "CREATE TABLE categories(path TEXT PRIMARY KEY, name TEXT NOT NULL, parent TEXT REFERENCES categories(path))",
                """
                CREATE TABLE products(id TEXT PRIMARY KEY, title TEXT NOT NULL, category TEXT NOT NULL REFERENCES categories(path), \
                description TEXT NOT NULL, price_amount TEXT NOT NULL, price_currency TEXT NOT NULL, free BOOLEAN NOT NULL, tileset TEXT \
                NOT NULL UNIQUE, bundle_path TEXT NOT NULL, version BIGINT NOT NULL, size BIGINT NOT NULL, sha256 TEXT NOT NULL, min_zoom \
                BIGINT NOT NULL, max_zoom BIGINT NOT NULL, west DOUBLE PRECISION NOT NULL, south DOUBLE PRECISION NOT NULL, east DOUBLE \
                PRECISION NOT NULL, north DOUBLE PRECISION NOT NULL, published_at DOUBLE PRECISION NOT NULL)
                """,
                """
                CREATE TABLE product_versions(product_id TEXT NOT NULL REFERENCES products(id), version BIGINT NOT NULL, sha256 TEXT NOT \
                NULL, size BIGINT NOT NULL, published_at DOUBLE PRECISION NOT NULL, PRIMARY KEY(product_id, version))
                """,
                """
                CREATE TABLE accounts(id TEXT PRIMARY KEY, email TEXT NOT NULL, password_hash TEXT NOT NULL, app_account_token TEXT NOT \
                NULL UNIQUE, created_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE UNIQUE INDEX accounts_email ON accounts(lower(email))",
                """
                CREATE TABLE sessions(token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), created_at DOUBLE \
                PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX sessions_account ON sessions(account_id)",
                "CREATE INDEX sessions_expiry ON sessions(expires_at)",
                """
                CREATE TABLE devices(id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), name TEXT NOT NULL, created_at \
                DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX devices_account ON devices(account_id)",
                """
                CREATE TABLE transactions(transaction_id TEXT PRIMARY KEY, original_transaction_id TEXT NOT NULL, account_id TEXT NOT NULL \
                REFERENCES accounts(id), product_id TEXT NOT NULL, purchase_date DOUBLE PRECISION NOT NULL, environment TEXT NOT NULL, \
                recorded_at DOUBLE PRECISION NOT NULL)
                """,
                """
                CREATE TABLE entitlements(original_transaction_id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), \
                product_id TEXT NOT NULL REFERENCES products(id), status TEXT NOT NULL CHECK(status IN ('active', 'revoked')), reason \
                TEXT, granted_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX entitlements_account ON entitlements(account_id, product_id)",
                """
                CREATE TABLE installs(device_id TEXT NOT NULL REFERENCES devices(id), product_id TEXT NOT NULL REFERENCES products(id), \
                version BIGINT NOT NULL, status TEXT NOT NULL CHECK(status IN ('installed', 'revoked')), updated_at DOUBLE PRECISION NOT \
                NULL, PRIMARY KEY(device_id, product_id))
                """,
                """
                CREATE TABLE notifications(notification_uuid TEXT PRIMARY KEY, type TEXT NOT NULL, subtype TEXT, original_transaction_id \
                TEXT, received_at DOUBLE PRECISION NOT NULL, arrival BIGSERIAL NOT NULL)
                """,
                """
                CREATE TABLE audit_log(id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, account_id TEXT, product_id TEXT, \
                original_transaction_id TEXT, action TEXT NOT NULL, reason TEXT NOT NULL)
                """,
                """
                CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_log is \
                append-only'; END $$
                """,
                """
                CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION \
                audit_log_append_only()
                """,
                """
                CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION \
                audit_log_append_only()
                """,
                "CREATE TABLE catalog_state(id INTEGER PRIMARY KEY CHECK (id = 1), change_stamp BIGINT NOT NULL)",
                "INSERT INTO catalog_state(id, change_stamp) VALUES (1, 1)"
            ]
        ),
        (
            "v2-product-layers",
            [
                "ALTER TABLE products ADD COLUMN layers_json TEXT NOT NULL DEFAULT '[]'"
            ]
        ),
        (
            "v3-notification-order",
            [
                "ALTER TABLE notifications ADD COLUMN signed_at DOUBLE PRECISION NOT NULL DEFAULT 0",
                "ALTER TABLE notifications ADD COLUMN revocation_at DOUBLE PRECISION",
                "CREATE INDEX notifications_transaction ON notifications(original_transaction_id, signed_at)"
            ]
        ),
        (
            "v4-tile-token-keys",
            [
                "CREATE TABLE tile_token_keys(id BIGSERIAL PRIMARY KEY, secret BYTEA NOT NULL, created_at DOUBLE PRECISION NOT NULL)",
                "DELETE FROM settings WHERE name = 'tile-token-key'"
            ]
        ),
        // The login throttle's counts, shared by every server (SQLite keeps them in memory).
        (
            "v5-login-attempts",
            [
                """
                CREATE TABLE login_attempts(key TEXT PRIMARY KEY, count BIGINT NOT NULL, locked_until DOUBLE PRECISION NOT NULL, last_at \
                DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX login_attempts_last ON login_attempts(last_at)"
            ]
        ),
        // Areas on demand, as the SQLite catalog's v5-areas.
        (
            "v6-areas",
            [
                "ALTER TABLE products ADD COLUMN kind TEXT NOT NULL DEFAULT 'region'",
                "ALTER TABLE products ADD COLUMN owner TEXT REFERENCES accounts(id)",
                "ALTER TABLE products ADD COLUMN area_json TEXT",
                "CREATE INDEX products_owner ON products(owner)",
                AreaSchema.quotesTable(real: "DOUBLE PRECISION", integer: "BIGINT"),
                "CREATE INDEX area_quotes_account ON area_quotes(account_id, created_at)",
                "CREATE INDEX area_quotes_expiry ON area_quotes(expires_at)"
            ]
        )
    ]

    /// Applies the migrations not yet recorded, in one transaction under an advisory lock:
    /// servers starting together migrate once (the others wait, then find nothing to do).
    static func migrate(_ catalog: PostgresCatalog) async throws(CatalogError) {
        let logger = catalog.logger
        try await catalog.transaction(bumpsStamp: false) { conn in
            // Not the operations' 30 s: a server may wait here while another migrates, and a
            // migration may build indexes on large tables.
            try await conn.run("SET LOCAL statement_timeout = '600s'", logger)
            try await conn.run("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger)
            try await conn.run(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations(version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger)
            let applied = Set(
                try await conn.rows("SELECT version FROM schema_migrations", logger).map { try $0.get("version", as: String.self) })
            for m in migrations where !applied.contains(m.version) {
                for statement in m.statements { try await conn.run(PostgresQuery(unsafeSQL: statement), logger) }
                try await conn.run("INSERT INTO schema_migrations(version) VALUES (\(m.version))", logger)
                logger.info("catalog migrated", metadata: ["version": "\(m.version)"])
            }
        }
    }

    /// The advisory lock key of migrations (any constant no other lock uses).
    static let migrationLock: Int = 0x7472_6169_6C6D_6170
}
