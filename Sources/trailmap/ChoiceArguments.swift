import ArgumentParser
import Catalog
import Foundation
import Trails

/// `build --terrain-image png|webp`: terrain tiles' image format (any case).
enum TerrainImageArgument: String, ExpressibleByArgument, CaseIterable {
    case png, webp

    init?(argument: String) { self.init(rawValue: argument.lowercased()) }

    @Sendable static func parse(_ text: String) throws -> TerrainImageArgument {
        guard let value = TerrainImageArgument(argument: text) else {
            throw ValidationError("--terrain-image must be png or webp, not \(text)")
        }
        return value
    }
}

/// `build --trails-preset osm`: read the trails' attributes as OpenStreetMap tags.
enum TrailsPresetArgument: String, ExpressibleByArgument, CaseIterable {
    case osm

    @Sendable static func parse(_ text: String) throws -> TrailsPresetArgument {
        guard let value = TrailsPresetArgument(rawValue: text) else { throw ValidationError("--trails-preset must be osm, not \(text)") }
        return value
    }
}

/// `trails add --preset osm|generic`: a built-in field mapping.
enum TrailMappingPresetArgument: String, ExpressibleByArgument, CaseIterable {
    case osm, generic

    @Sendable static func parse(_ text: String) throws -> TrailMappingPresetArgument {
        guard let value = TrailMappingPresetArgument(rawValue: text) else {
            throw ValidationError("--preset must be osm or generic, not \(text).")
        }
        return value
    }
}

/// `serve --available-products ID,ID`: the product ids the store offers right now.
struct ProductIDListArgument: ExpressibleByArgument {
    let ids: Set<String>

    init?(argument: String) {
        let ids = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard ids.allSatisfy(ProductFile.isValidProductID) else { return nil }
        self.ids = Set(ids)
    }

    @Sendable static func parse(_ text: String) throws -> ProductIDListArgument {
        guard let list = ProductIDListArgument(argument: text) else {
            throw ValidationError("--available-products must be product ids separated by commas")
        }
        return list
    }
}

extension TrailQuery.Sort: ExpressibleByArgument {
    /// `--sort distance|length|name`.
    @Sendable static func parse(_ text: String) throws -> TrailQuery.Sort {
        guard let s = TrailQuery.Sort(rawValue: text) else { throw ValidationError("--sort must be distance, length or name.") }
        return s
    }
}

/// `regions sandbox-refund --type`: the store notification to send.
enum RefundTypeArgument: String, ExpressibleByArgument, CaseIterable {
    case refund = "REFUND", revoke = "REVOKE", refundReversed = "REFUND_REVERSED"

    @Sendable static func parse(_ text: String) throws -> RefundTypeArgument {
        guard let value = RefundTypeArgument(rawValue: text) else {
            throw ValidationError("--type must be REFUND, REVOKE or REFUND_REVERSED")
        }
        return value
    }
}
