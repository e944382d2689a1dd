import Catalog
import Essentials
import Foundation
import TileGeometry
import TileStore
import TrailMapAPI

/// One quote's file work: choose among the area products, plan, cut, measure.
struct QuoteJob: Sendable {
    let shape: AreaShape
    let request: AreaQuoteRequest
    let offers: [Product]
    let regions: [Product]
    let directory: String
    let output: String

    struct Made: Sendable {
        var offer: Product
        var plan: AreaPlanner.Plan
        var title: String
        var size: Int64
        var sha256: String
        var tiles: Int
        /// The cut file's identity while it was hashed (nil when it changed meanwhile).
        var identity: FileStat?
    }

    func run() throws(AreaError) -> Made {
        do {
            try FileManager.default.createDirectory(
                atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch { throw .cutFailed("cannot create \((output as NSString).deletingLastPathComponent): \(error.localizedDescription)") }
        var candidates = [(offer: Product, sources: AreaSources, plan: AreaPlanner.Plan)]()
        var refusals = [AreaError]()
        var zoomsHere = [ClosedRange<Int>]()
        for offer in offers {
            guard let terms = offer.areaOffer, shape.bounds.intersection(offer.bounds) != nil else { continue }
            let sources = try AreaSources(names: terms.from, directory: directory)
            let all = sources.zooms
            let lo = request.minzoom ?? all.lowerBound, hi = request.maxzoom ?? all.upperBound
            guard all.contains(lo), all.contains(hi), lo <= hi else {
                if request.productId != nil { throw .invalidRequest("\(offer.id) has zooms \(all.lowerBound) to \(all.upperBound)") }
                zoomsHere.append(all)
                continue
            }
            let planner = AreaPlanner(sources: sources, cap: terms.maxBytes, productId: offer.id)
            do {
                if let plan = try planner.plan(shape, zooms: lo...hi, fixedTop: request.maxzoom != nil) {
                    candidates.append((offer, sources, plan))
                }
            } catch { refusals.append(error) }
        }
        // Full detail first, then the cheaper product, then the smaller cap.
        candidates.sort { a, b in
            let fa = a.plan.zooms.upperBound == a.plan.requestedMaxZoom, fb = b.plan.zooms.upperBound == b.plan.requestedMaxZoom
            if fa != fb { return fa }
            if a.plan.zooms.upperBound != b.plan.zooms.upperBound { return a.plan.zooms.upperBound > b.plan.zooms.upperBound }
            let pa = Decimal(string: a.offer.price.amount) ?? 0, pb = Decimal(string: b.offer.price.amount) ?? 0
            if pa != pb { return pa < pb }
            return a.offer.size < b.offer.size
        }
        guard var best = candidates.first else {
            if let refusal = refusals.first { throw refusal }
            // Area products cover the place, but not at the zooms asked for: say which they have.
            if !zoomsHere.isEmpty {
                let have = zoomsHere.map { "\($0.lowerBound) to \($0.upperBound)" }.joined(separator: ", ")
                throw .invalidRequest("no area product here has those zooms; here they have zooms \(have)")
            }
            throw .notCovered(nearby: nearby())
        }
        // The estimate is generous, but the file decides: lower the top zoom while it is over the cap.
        let cap = best.offer.areaOffer?.maxBytes ?? best.offer.size
        while true {
            let stats = try AreaCutter(sources: best.sources).cut(
                bounds: best.plan.bounds, zooms: best.plan.zooms,
                metadata: metadata(best.offer, best.sources, best.plan), to: output)
            let (size, sha): (Int64, String)
            let before = FileStat(path: output)
            do { (size, sha) = try FileSHA256.digest(path: output) } catch { throw .cutFailed("\(error)") }
            if size <= cap {
                let identity = before.flatMap { $0 == FileStat(path: output) && $0.size == size ? $0 : nil }
                return Made(
                    offer: best.offer, plan: best.plan, title: title(), size: size, sha256: sha, tiles: stats.tiles, identity: identity)
            }
            try? FileManager.default.removeItem(atPath: output)
            guard request.maxzoom == nil, best.plan.zooms.upperBound > best.plan.zooms.lowerBound else {
                let planner = AreaPlanner(sources: best.sources, cap: cap, productId: best.offer.id)
                let zooms = best.plan.zooms.lowerBound...best.plan.requestedMaxZoom
                throw .tooLarge(
                    productId: best.offer.id, maxBytes: cap, largestRadiusKm: try planner.largestRadius(shape, zooms: zooms), zooms: zooms)
            }
            best.plan.zooms = best.plan.zooms.lowerBound...(best.plan.zooms.upperBound - 1)
        }
    }

    /// The area's name, e.g. `Area around 39.75°N 105.00°W (5 km)`.
    func title() -> String {
        let lat = shape.center.lat, lon = shape.center.lon
        let place = String(format: "%.2f°%@ %.2f°%@", abs(lat), lat >= 0 ? "N" : "S", abs(lon), lon >= 0 ? "E" : "W")
        return shape.isCircle
            ? "Area around \(place) (\(String(format: "%g", (shape.radiusKm * 10).rounded() / 10)) km)"
            : "Area of \(String(format: "%.0f x %.0f", 2 * shape.halfWidthKm, 2 * shape.halfHeightKm)) km at \(place)"
    }

    private func metadata(_ offer: Product, _ sources: AreaSources, _ plan: AreaPlanner.Plan) -> BundleMetadata {
        var m = BundleMetadata(name: title(), bounds: plan.bounds, minZoom: plan.zooms.lowerBound, maxZoom: plan.zooms.upperBound)
        let first = sources.sources[0].metadata
        m.format = first.format
        m.type = first.type
        var seen = Set<String>()
        m.attribution = sources.sources.map(\.metadata.attribution).filter { !$0.isEmpty && seen.insert($0).inserted }.joined(
            separator: "; ")
        m.description = "Cut from \(sources.sources.map(\.metadata.name).joined(separator: ", ")) for \(offer.title)."
        m.extra["trailmap:extracted-from"] = sources.sources.map { "\($0.tileset).mbtiles" }.joined(separator: ",")
        m.extra["trailmap:area-product"] = offer.id
        if let size = first.extra["trailmap:tilesize"] { m.extra["trailmap:tilesize"] = size }
        return m
    }

    /// The regions nearest the place, nearest first (at most 5).
    func nearby() -> [NearbyRegion] {
        regions.map { NearbyRegion(productId: $0.id, title: $0.title, distanceKm: (shape.distanceKm(to: $0.bounds) * 10).rounded() / 10) }
            .sorted { $0.distanceKm < $1.distanceKm }.prefix(5).map { $0 }
    }
}
