import Foundation
import TrailMapAPI

extension RegionManagerError {
    /// The messages of the area errors (the other cases' are in `description`).
    var areaDescription: String {
        let quoteHint = "Ask for a new quote."
        switch self {
        case let .areaNotCovered(center, zooms, nearby):
            let place = center.flatMap { $0.count == 2 ? Self.point(latitude: $0[1], longitude: $0[0]) : nil } ?? "that point"
            let point = place + (zooms.map { " at \($0)" } ?? "")
            let hint = zooms == nil ? "" : " Leave out the zooms to get the ones the maps there hold."
            guard !nearby.isEmpty else { return "No map covers \(point), so no area can be sold there, and no region is nearby.\(hint)" }
            let under = nearby.filter { $0.distanceKm < 0.05 }
            if let zooms, !under.isEmpty {
                let names = under.map { "\($0.title) (\($0.productId))" }.joined(separator: ", ")
                return "No area can be sold at \(place): the maps there, \(names), do not hold \(zooms).\(hint)"
            }
            let list = nearby.map { "\($0.title) (\($0.productId)), \(Self.km($0.distanceKm)) away" }.joined(separator: "; ")
            return "No map covers \(point), so no area can be sold there. The nearest regions: \(list). "
                + (zooms == nil ? "Pick a point inside one of them." : hint.dropFirst())
        case let .areaTooLarge(radius, largest, message):
            let asked = radius.map { "An area of \(Self.km($0)) radius" } ?? "That area"
            guard let largest, largest > 0 else {
                return
                    """
                    \(asked) is larger than one purchase allows, and so is the smallest area at these zooms (\(message)). Ask for a lower \
                    top zoom.
                    """
            }
            return "\(asked) is larger than one purchase allows. The largest radius that fits is \(Self.km(largest)): "
                + "ask again with a radius of \(Self.km(largest)) (or with a lower top zoom, or without one, "
                + "so that the quote may lower the top zoom)."
        case let .invalidArea(message):
            return "The server refused the area: \(message)."
        case let .areaProduct(id):
            return "\(id) is sold per area, not as a whole region: it cannot be bought or installed by itself. "
                + "Get a quote for the area around a point, buy it, then install the area it gives."
        case let .notAnAreaProduct(id):
            return "\(id) is not sold per area. Ask without a product to get the best area product for the point, "
                + "or buy the whole region."
        case let .unknownQuote(id):
            return "Your account has no quote \(id) (quotes belong to the account that asked for them). \(quoteHint)"
        case let .quoteExpired(id):
            return "Quote \(id) has expired; nothing was bought. \(quoteHint)"
        case let .quoteUsed(id):
            return "Quote \(id) was already bought. For another area, ask for a new quote."
        case let .transactionUsed(message):
            return
                """
                That store transaction has already paid for something else (\(message)); nothing was bought. Each area needs a purchase of \
                its own.
                """
        case let .wrongAreaProduct(message):
            return "The store transaction does not pay for this quote (\(message)); nothing was bought."
        default:
            return "The request failed."
        }
    }

    /// `40.3400, -105.6800` (latitude first, as the commands take it).
    public static func point(latitude: Double, longitude: Double) -> String {
        String(format: "%.4f, %.4f", latitude, longitude)
    }

    /// `12.5 km`, `1,234 km`.
    public static func km(_ value: Double) -> String { "\(number(value)) km" }

    /// At most one decimal, no trailing `.0`; thousands separated by commas.
    /// Any server number prints: not a number as `?`, one beyond a trillion in exponent form.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        guard abs(value) < 1e12 else { return String(format: "%.3g", value) }
        if value > 0, value < 0.1 { return String(format: "%.2f", (value * 100).rounded(.down) / 100) }
        let rounded = (value * 10).rounded(.down) / 10
        if rounded >= 1000 || rounded == rounded.rounded() {
            let whole = Int(rounded)
            let digits = String(abs(whole))
            var out = ""
            for (i, c) in digits.reversed().enumerated() {
                if i > 0, i % 3 == 0 { out.append(",") }
                out.append(c)
            }
            return (whole < 0 ? "-" : "") + String(out.reversed())
        }
        return String(format: "%.1f", rounded)
    }
}
