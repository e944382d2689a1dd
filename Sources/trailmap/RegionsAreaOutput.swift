import Foundation
import RegionManager
import TrailMapAPI

/// What `trailmap regions area ...` prints.
enum RegionsAreaOutput {
    static func quote(_ q: AreaQuote, latitude: Double, longitude: Double, radiusKm: Double) {
        TerminalText.print("Quote \(q.quoteId): \(q.title), \(q.price.display)")
        TerminalText.print("  product:  \(q.productId)")
        TerminalText.print("  center:   \(String(format: "%.4f, %.4f", latitude, longitude)), radius \(number(radiusKm)) km")
        TerminalText.print("  bounds:   \(bounds(q.bounds)) (W, S, E, N)")
        let lowered = q.requestedMaxzoom > q.maxzoom ? " (lowered from \(q.requestedMaxzoom) to fit the cap)" : ""
        TerminalText.print("  zooms:    \(q.minzoom)-\(q.maxzoom)\(lowered)")
        TerminalText.print(
            "  size:     \(ByteSize.format(Int(q.size))) (\(q.size) bytes, \(q.tiles) tiles),"
                + " up to \(ByteSize.format(Int(q.maxBytes))) per area"
        )
        TerminalText.print("  sources:  \(q.sources.joined(separator: ", "))")
        TerminalText.print("  expires:  \(q.expiresAt)")
        if let message = q.message { TerminalText.print("Note: \(message)") }
        TerminalText.print("Buy it before it expires with `trailmap regions area buy \(q.quoteId)`.")
    }

    static func bought(_ o: AreaPurchaseOutcome) {
        let r = o.result
        if r.alreadyRecorded {
            TerminalText.print("This store transaction (\(r.transactionId)) had already bought area \(r.areaId); nothing new was bought.")
        } else {
            TerminalText.print("Bought area \(r.areaId): \(r.title), \(o.quote.price.display) (transaction \(r.transactionId)).")
        }
        TerminalText.print("  size:     \(ByteSize.format(Int(r.size))) (\(r.size) bytes), zooms \(r.minzoom)-\(r.maxzoom)")
        TerminalText.print("  bounds:   \(bounds(r.bounds)) (W, S, E, N)")
        TerminalText.print("Install it with `trailmap regions install \(r.areaId)`.")
    }

    static func bounds(_ b: [Double]) -> String { b.map { String(format: "%.4f", $0) }.joined(separator: ", ") }

    /// `5`, `2.5`.
    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v) }

    /// The KIND column of `regions list` and `status`.
    static func kind(_ k: ProductKind) -> String {
        switch k {
        case .region: "region"
        case .areaProduct: "area offer"
        case .area: "area"
        }
    }
}
