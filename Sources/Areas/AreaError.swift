import Catalog
import Foundation
import TrailMapAPI

/// What can go wrong when quoting an area; each case reads as a message a user can act on.
public enum AreaError: Error, CustomStringConvertible, Sendable {
    /// The request is malformed (shape, radius, zooms).
    case invalidRequest(String)
    /// No area product covers the place: the regions nearest to it.
    case notCovered(nearby: [NearbyRegion])
    /// The area cannot fit the product's cap at the zooms asked: about the largest radius that fits (km; 0 when none does).
    case tooLarge(productId: String, maxBytes: Int64, largestRadiusKm: Double, zooms: ClosedRange<Int>)
    /// `productId` names no area product.
    case notAnAreaProduct(String)
    /// Too many areas are being cut right now.
    case busy(retryAfter: Int)
    /// The quotes waiting to be bought hold as many bytes as the server keeps for them.
    case quotesFull(retryAfter: Int)
    /// The account (or its address) already has a quote being cut.
    case quoteInProgress(retryAfter: Int)
    /// The account (or its address) asked for more quotes than its rate allows.
    case tooManyQuotes(retryAfter: Int)
    /// The account's (or its address's) unbought quotes hold its share of the quote space.
    case quoteSpaceUsed(retryAfter: Int)
    /// A source bundle cannot be read or written.
    case cutFailed(String)
    case catalog(CatalogError)

    public var description: String {
        switch self {
        case let .invalidRequest(m): m
        case let .notCovered(nearby):
            "no area product covers this place"
                + (nearby.isEmpty
                    ? ""
                    : "; nearest regions: "
                        + nearby.map { "\($0.title) (\($0.productId), \(String(format: "%.0f", $0.distanceKm)) km)" }.joined(
                            separator: ", "))
        case let .tooLarge(id, cap, r, zooms):
            r > 0
                ? """
                the area is larger than \(id)'s cap of \(cap) bytes at zooms \(zooms.lowerBound) to \(zooms.upperBound); the largest \
                radius that fits is about \(String(format: "%.1f", r)) km
                """
                : """
                even the smallest area at zooms \(zooms.lowerBound) to \(zooms.upperBound) is larger than \(id)'s cap of \(cap) bytes; \
                ask for a lower maxzoom
                """
        case let .notAnAreaProduct(id): "\(id) is not an area product"
        case let .busy(s): "the server is cutting other areas; try again in \(s) seconds"
        case let .quotesFull(s):
            "the server holds as many unbought area quotes as it has room for; try again in \(s) seconds, when older ones expire"
        case let .quoteInProgress(s): "a quote of yours is being cut; try again in \(s) seconds, when it is ready"
        case let .tooManyQuotes(s): "too many area quotes asked for lately; try again in \(s) seconds"
        case let .quoteSpaceUsed(s):
            "your unbought area quotes hold all the room kept for one account; buy one or try again in \(s) seconds, when they expire"
        case let .cutFailed(m): "the area could not be cut: \(m)"
        case let .catalog(e): e.description
        }
    }

    /// A stable machine-readable code for API errors.
    public var code: String {
        switch self {
        case .invalidRequest: "invalid_area"
        case .notCovered: "area_not_covered"
        case .tooLarge: "area_too_large"
        case .notAnAreaProduct: "not_an_area_product"
        case .busy, .quotesFull: "busy"
        case .quoteInProgress: "quote_in_progress"
        case .tooManyQuotes: "too_many_quotes"
        case .quoteSpaceUsed: "quote_space_used"
        case .cutFailed: "area_unavailable"
        case let .catalog(e): e.code
        }
    }
}
