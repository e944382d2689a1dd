import RegionManager
import TrailMapAPI

/// The CLI's words for the device side's errors: what went wrong and the command or flag that
/// helps (the library's own descriptions name none).
enum RegionsWording {
    /// The message of `e` for the terminal (before `TerminalText.clean`).
    static func message(_ e: RegionManagerError) -> String {
        switch e {
        case let .serverUnreachable(server, attempts, reason):
            return "Cannot reach the TrailMap server at \(server) (\(attempts) attempt(s): \(reason)). "
                + "Check your network and the --server address, then try again."
        case let .serverFailure(status, attempts, message):
            return
                """
                The server failed with HTTP \(status) after \(attempts) attempt(s)\(message.isEmpty ? "" : ": \(message)"). Try again \
                later.
                """
        case let .notLoggedIn(server):
            return "You are not logged in to \(server), or your session expired. Run `trailmap account login --server \(server)`."
        case let .wrongCredentials(server):
            return "\(server) refused the email or password: they do not match an account there."
        case let .rejected(status, code, message):
            return "The server refused the request (HTTP \(status) \(code)): \(message)"
        case let .unknownProduct(id):
            return "No region \(id) in the catalog. Run `trailmap regions list` to see the product ids."
        case let .notEntitled(id):
            return "You do not own \(id). Buy it first with `trailmap regions buy \(id)`."
        case let .revoked(id):
            return "Your purchase of \(id) was refunded or revoked, so it can no longer be downloaded."
        case let .unavailable(id):
            return "\(id) is not offered by the store right now."
        case let .insufficientDisk(needed, available, path):
            return "Not enough disk space in \(path): the download needs \(needed) bytes, \(available) are free. "
                + "Free some space (e.g. `trailmap regions uninstall ID`) and try again."
        case let .overBudget(needed, used, budget):
            return "Installing needs \(needed) bytes but \(used) of the \(budget)-byte storage budget are used. "
                + "Uninstall a region or raise --storage-budget."
        case let .checksumMismatch(id, expected, actual):
            return "The download of \(id) is corrupted (SHA-256 \(actual), expected \(expected)); it was deleted and nothing "
                + "was installed. Run the install again."
        case let .invalidResponse(what):
            return "The server sent an answer this client does not understand: \(what)"
        case let .stateFolder(path, reason):
            return "Cannot use the state folder \(path): \(reason). Choose another with --state-dir."
        case let .notInstalled(id):
            return "\(id) is not installed on this device. Run `trailmap regions status` to see what is."
        case let .downloadInProgress(id):
            return "Another trailmap process is downloading \(id) into this folder. Wait for it, or stop it and run the install again."
        case let .fileSystem(path, reason):
            return "File operation failed on \(path): \(reason)"
        case let .patch(id, reason):
            return "The update of \(id) by patch failed, the installed version is unchanged: \(reason)"
        case let .unsafeName(field, value):
            return "The server sent a \(field) that is not safe as a file name: \(String(value.prefix(80)).debugDescription) "
                + "(letters, digits, '.', '_' and '-' only, not starting with '.'). Nothing was changed on this device."
        case let .insecureHTTP(server):
            return "Refusing to talk to \(server) over plain http: your password and session token would cross the network "
                + "unencrypted. Use an https:// server (a server on this machine, such as http://127.0.0.1, needs nothing)."
        default:
            return areaMessage(e)
        }
    }

    /// The messages of the area errors.
    static func areaMessage(_ e: RegionManagerError) -> String {
        let quoteHint = "Ask for a new quote with `trailmap regions area quote LAT,LON --radius-km R`."
        switch e {
        case let .areaNotCovered(center, zooms, nearby):
            let place = center.flatMap { $0.count == 2 ? RegionManagerError.point(latitude: $0[1], longitude: $0[0]) : nil } ?? "that point"
            let point = place + (zooms.map { " at \($0)" } ?? "")
            let hint = zooms == nil ? "" : " Leave out --minzoom and --maxzoom to get the zooms the maps there hold."
            guard !nearby.isEmpty else { return "No map covers \(point), so no area can be sold there, and no region is nearby.\(hint)" }
            let under = nearby.filter { $0.distanceKm < 0.05 }
            if let zooms, !under.isEmpty {
                let names = under.map { "\($0.title) (\($0.productId))" }.joined(separator: ", ")
                return "No area can be sold at \(place): the maps there, \(names), do not hold \(zooms).\(hint) "
                    + "`trailmap regions show ID` gives a region's zooms."
            }
            let list = nearby.map { "\($0.title) (\($0.productId)), \(RegionManagerError.km($0.distanceKm)) away" }.joined(separator: "; ")
            return "No map covers \(point), so no area can be sold there. The nearest regions: \(list). "
                + (zooms == nil ? "Pick a point inside one of them (`trailmap regions show ID` gives its bounds)." : hint.dropFirst())
        case let .areaTooLarge(radius, largest, message):
            let asked = radius.map { "An area of \(RegionManagerError.km($0)) radius" } ?? "That area"
            guard let largest, largest > 0 else {
                return
                    """
                    \(asked) is larger than one purchase allows, and so is the smallest area at these zooms (\(message)). Ask for a lower \
                    --maxzoom.
                    """
            }
            return "\(asked) is larger than one purchase allows. The largest radius that fits is \(RegionManagerError.km(largest)): "
                + "ask again with --radius-km \(RegionManagerError.number(largest)) (or with a lower --maxzoom, or without --maxzoom, "
                + "so that the quote may lower the top zoom)."
        case let .invalidArea(message):
            return "The server refused the area: \(message)."
        case let .areaProduct(id):
            return "\(id) is sold per area, not as a whole region: it cannot be bought or installed by itself. "
                + "Get a quote for the area around a point with `trailmap regions area quote LAT,LON --radius-km R --product \(id)`, "
                + "buy it with `trailmap regions area buy QUOTE_ID`, then install the area it gives."
        case let .notAnAreaProduct(id):
            return "\(id) is not sold per area. Leave out --product to get the best area product for the point, "
                + "or buy the whole region with `trailmap regions buy \(id)`."
        case let .unknownQuote(id):
            return "Your account has no quote \(id) (quotes belong to the account that asked for them). \(quoteHint)"
        case let .quoteExpired(id):
            return "Quote \(id) has expired; nothing was bought. \(quoteHint)"
        case let .quoteUsed(id):
            return "Quote \(id) was already bought: `trailmap regions list` shows your areas. For another area, ask for a new quote "
                + "with `trailmap regions area quote LAT,LON --radius-km R`."
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
}
