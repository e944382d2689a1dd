import Foundation

/// The `--json` documents of the commands that report one result (printed through `JSONOutput`,
/// one object each). Keys are the words of the text output; sizes are bytes.
enum CommandReports {
    /// `bundle extract --json`.
    struct Extract: Encodable {
        var file: String
        var tiles: Int
        var storedImages: Int
        var tileBytes: Int
        var storedBytes: Int
        var trails: Int
    }

    /// `bundle export --json`, a folder of tile files.
    struct FolderExport: Encodable {
        var dir: String
        var tiles: Int
        var bytes: Int
        var minzoom: Int?
        var maxzoom: Int?
        var fileExtension: String
        var invalidRowsSkipped: Int
        var seconds: Double
    }

    /// `bundle export --pmtiles --json`.
    struct ArchiveExport: Encodable {
        var pmtiles: String
        var addressedTiles: Int
        var entries: Int
        var contents: Int
        var leafDirectories: Int
        var bytes: Int64
        var seconds: Double
    }

    /// `bundle merge --json`.
    struct Merge: Encodable {
        var out: String
        var parts: Int
        var tiles: Int
        var upperTiles: Int
        var bytes: Int
        var seconds: Double
    }

    /// `catalog publish --json`.
    struct Publish: Encodable {
        struct Patch: Encodable {
            var fromVersion: Int
            var toVersion: Int
            var bytes: Int64
        }

        struct Product: Encodable {
            var productId: String
            var change: String
            var version: Int
            var kind: String
            var size: Int64
            var sha256: String
            var patches: [Patch]
        }

        var catalog: String
        var products: [Product]
    }

    /// `catalog revoke-tile-tokens --json`.
    struct Revoke: Encodable {
        var catalog: String
        var newKeyId: Int64
        var oldTokensStopWithinSeconds: Int
    }

    /// `catalog places load --json`.
    struct PlacesLoaded: Encodable {
        var file: String
        var placeList: String
        var places: Int
    }

    /// `catalog places find --json`.
    struct PlaceFound: Encodable {
        var name: String
        var lat: Double
        var lon: Double
    }

    /// `store sandbox init --json`.
    struct SandboxInit: Encodable {
        var directory: String
        var bundleId: String
        var environment: String
        var files: [String: String]
    }

    /// `account register|login|logout --json`.
    struct Account: Encodable {
        var result: String
        var server: String
        var email: String?
        var deviceId: String?
        var warning: String?
    }

    /// `regions sandbox-refund --json`.
    struct Refund: Encodable {
        var productId: String
        var type: String
        var transactionId: String
    }

    /// `trails add --json`.
    struct TrailsAdded: Encodable {
        var bundle: String
        var trails: Int
        var lineFeatures: Int
        var filteredOut: Int
        var joinedTrails: Int
        var duplicates: Int
        var skipped: [String]
    }

    /// `trails verify --json` (exit 1 still when there are problems).
    struct TrailsVerified: Encodable {
        var bundle: String
        var ok: Bool
        var problems: [String]
    }
}
