import Foundation

/// Where `catalog publish` writes patches and `serve` reads them unless told otherwise.
enum PatchStoreLocation {
    static func defaultRoot(tiles: String) -> String { (tiles as NSString).appendingPathComponent(".trailmap-patches") }
}
