import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The viewer's static files (Leaflet from Debian's libjs-leaflet), read once and kept in memory,
/// and the pages' own scripts (`embedded`).
/// Only a fixed list of names is served, so no request path ever reaches the file system.
/// Every file carries an ETag of its content and answers a matching `If-None-Match` with 304.
final class AssetStore: Sendable {
    let leafletDirectory: String
    private let cache = Mutex<[String: PageAsset]>([:])

    static let files: [String: String] = [
        "leaflet.js": "application/javascript; charset=utf-8",
        "leaflet.css": "text/css; charset=utf-8",
        "images/layers.png": "image/png",
        "images/layers-2x.png": "image/png",
        "images/marker-icon.png": "image/png",
        "images/marker-icon-2x.png": "image/png",
        "images/marker-shadow.png": "image/png"
    ]

    init(leafletDirectory: String) {
        self.leafletDirectory = leafletDirectory
    }

    /// Whether `directory` holds Leaflet's script (the viewer and the store page draw no map without it).
    static func holdsLeaflet(_ directory: String) -> Bool {
        FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("leaflet.js"))
    }

    /// The pages' own files, kept in the binary.
    static let embedded: [String: (type: String, body: String)] = [
        "trailmap-viewer.js": ("application/javascript; charset=utf-8", ViewerScript.source),
        "trailmap-profile.js": ("application/javascript; charset=utf-8", ProfileChartScript.source),
        "trailmap-store.js": ("application/javascript; charset=utf-8", StoreScript.source)
    ]

    /// The embedded files with their ETags (hashed once).
    static let embeddedAssets: [String: PageAsset] = embedded.mapValues {
        PageAsset(text: $0.body, contentType: $0.type, cacheControl: "no-cache")
    }

    /// The file `name` (200, or 304 when `ifNoneMatch` names its ETag).
    func response(for name: String, ifNoneMatch: String? = nil) throws -> Response {
        if let asset = AssetStore.embeddedAssets[name] { return asset.response(ifNoneMatch: ifNoneMatch) }
        guard let type = AssetStore.files[name] else { throw APIError.notFound("not_found", "no viewer file \(name.prefix(100))") }
        if let cached = cache.withLock({ $0[name] }) { return cached.response(ifNoneMatch: ifNoneMatch) }
        let path = (leafletDirectory as NSString).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APIError(
                .notFound, code: "viewer_asset_missing",
                message:
                    "\(path) is missing: install Debian's libjs-leaflet (apt-get install libjs-leaflet) or give the server the folder that holds Leaflet"
            )
        }
        let asset = PageAsset(bytes: data, contentType: type, cacheControl: "public, max-age=86400")
        cache.withLock { $0[name] = asset }
        return asset.response(ifNoneMatch: ifNoneMatch)
    }
}
