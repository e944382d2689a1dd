import Catalog
import Foundation

/// Where a PostgreSQL catalog is and how to reach it, usually parsed from a URL:
///
/// - `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (`postgresql://` too; PORT defaults to 5432)
/// - `postgres://USER@/DATABASE?host=/var/run/postgresql` (a Unix socket in that folder:
///   `.s.PGSQL.PORT`, with `&port=` when not 5432)
/// - query options: `sslmode=disable|prefer|require` (TCP only; default `prefer`),
///   `pool_max=N` (connections per server, 1 to 100; default 10),
///   `connect_timeout=S` (seconds, 1 to 300; default 5).
///
/// The password is never part of `description`.
public struct PostgresCatalogConfiguration: Sendable, Equatable, CustomStringConvertible {
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The socket file's full path (`FOLDER/.s.PGSQL.PORT`).
        case unixSocket(path: String)
    }

    public enum TLSMode: String, Sendable, Equatable { case disable, prefer, require }

    public var endpoint: Endpoint
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// Most connections this process opens to the database.
    public var maximumConnections: Int
    /// How long to wait for a connection before reporting the database unreachable.
    public var connectTimeout: Duration

    public init(
        endpoint: Endpoint, username: String, password: String?, database: String, tls: TLSMode = .prefer,
        maximumConnections: Int = 10, connectTimeout: Duration = .seconds(5)
    ) {
        self.endpoint = endpoint
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.maximumConnections = maximumConnections
        self.connectTimeout = connectTimeout
    }

    /// Whether `string` names a PostgreSQL catalog (starts with `postgres://` or `postgresql://`).
    public static func isPostgresURL(_ string: String) -> Bool {
        let lower = string.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses a `postgres://` or `postgresql://` URL; the error says what is wrong (without the password).
    public init(url string: String) throws(CatalogError) {
        let usage = "use postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or postgres://USER@/DATABASE?host=/socket/folder"
        guard Self.isPostgresURL(string), let url = URLComponents(string: string) else {
            throw .invalidArgument("not a PostgreSQL URL: \(Self.redacted(string)); \(usage)")
        }
        guard let user = url.user, !user.isEmpty else {
            throw .invalidArgument("the PostgreSQL URL \(Self.redacted(string)) names no user; \(usage)")
        }
        let db = String(url.path.drop(while: { $0 == "/" }))
        guard !db.isEmpty, !db.contains("/") else {
            throw .invalidArgument("the PostgreSQL URL \(Self.redacted(string)) names no database; \(usage)")
        }
        var options = [String: String]()
        for item in url.queryItems ?? [] {
            guard let value = item.value, !value.isEmpty else {
                throw .invalidArgument("the PostgreSQL URL option \(item.name) has no value")
            }
            options[item.name] = value
        }
        let known: Set = ["host", "port", "sslmode", "pool_max", "connect_timeout"]
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidArgument("unknown PostgreSQL URL option \(unknown) (known: \(known.sorted().joined(separator: ", ")))")
        }
        func number(_ name: String, _ range: ClosedRange<Int>) throws(CatalogError) -> Int? {
            guard let text = options[name] else { return nil }
            guard let n = Int(text), range.contains(n) else {
                throw .invalidArgument(
                    "the PostgreSQL URL option \(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        let optionPort = try number("port", 1...65_535)
        if let socketFolder = options["host"] {
            guard socketFolder.hasPrefix("/") else {
                throw .invalidArgument(
                    "the PostgreSQL URL option host must be a socket folder starting with / (put a network host before the /DATABASE)")
            }
            guard url.host?.isEmpty ?? true else {
                throw .invalidArgument("the PostgreSQL URL names both a host and a socket folder (?host=); keep one")
            }
            endpoint = .unixSocket(path: (socketFolder as NSString).appendingPathComponent(".s.PGSQL.\(optionPort ?? url.port ?? 5432)"))
        } else {
            guard let host = url.host, !host.isEmpty else {
                throw .invalidArgument("the PostgreSQL URL \(Self.redacted(string)) names no host; \(usage)")
            }
            let port = url.port ?? optionPort ?? 5432
            guard (1...65_535).contains(port) else { throw .invalidArgument("the PostgreSQL port must be from 1 to 65535") }
            endpoint = .tcp(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
        }
        guard let mode = TLSMode(rawValue: options["sslmode"] ?? "prefer") else {
            throw .invalidArgument("the PostgreSQL URL option sslmode must be disable, prefer or require")
        }
        username = user
        password = url.password
        database = db
        tls = mode
        maximumConnections = try number("pool_max", 1...100) ?? 10
        connectTimeout = .seconds(try number("connect_timeout", 1...300) ?? 5)
    }

    /// The URL without its password.
    public var description: String {
        let user = username + (password == nil ? "" : ":***")
        switch endpoint {
        case let .tcp(host, port):
            let h = host.contains(":") ? "[\(host)]" : host
            return "postgres://\(user)@\(h):\(port)/\(database)"
        case let .unixSocket(path):
            return "postgres://\(user)@/\(database)?host=\((path as NSString).deletingLastPathComponent)"
        }
    }

    /// `string` with any password between `//user:` and `@` replaced by `***`.
    public static func redacted(_ string: String) -> String {
        guard let scheme = string.range(of: "://") else { return string }
        let rest = string[scheme.upperBound...]
        guard let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return string }
        return String(string[..<rest.index(after: colon)]) + "***" + String(rest[at...])
    }
}
