import Foundation
import RegionManager
import TrailMapAPI

/// Tables and JSON for `trailmap regions`.
enum RegionsOutput {
    static func json<T: Encodable>(_ value: T) throws {
        try JSONOutput.print(value)
    }

    /// Left-aligned columns, two spaces apart.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = ([header] + rows).map { $0.map { TerminalText.clean($0) } }
        let widths = header.indices.map { i in all.map { $0[i].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }
            TerminalText.print(cells.joined(separator: "  "))
        }
    }

    static func products(_ products: [Product]) {
        guard !products.isEmpty else { TerminalText.print("No regions."); return }
        table(
            ["ID", "KIND", "NAME", "CATEGORY", "SIZE", "PRICE", "STATUS"],
            products.map {
                [$0.productId, RegionsAreaOutput.kind($0.kind), $0.title, $0.category, size($0), price($0), $0.status.display]
            })
        if products.contains(where: { $0.kind == .areaProduct }) {
            TerminalText.print(
                "\nArea offers are bought per area: `trailmap regions area quote LAT,LON --radius-km R` quotes the area around a point.")
        }
    }

    /// An area offer's size is its cap.
    static func size(_ p: Product) -> String {
        if p.kind == .areaProduct, let cap = p.area?.maxBytes { return "up to \(ByteSize.format(Int(cap)))" }
        return ByteSize.format(Int(p.size))
    }

    static func price(_ p: Product) -> String {
        if p.free { return "free" }
        return p.kind == .areaProduct ? "\(p.price.display) per area" : p.price.display
    }

    static func product(_ p: ProductDetail) {
        TerminalText.print("\(p.title) (\(p.productId))")
        TerminalText.print("  category:   \(p.category)")
        if !p.description.isEmpty { TerminalText.print("  about:      \(p.description)") }
        TerminalText.print("  price:      \(p.free ? "free" : p.price.display)")
        TerminalText.print("  status:     \(p.status.display)\(p.installedVersion.map { " (version \($0) installed)" } ?? "")")
        TerminalText.print("  kind:       \(RegionsAreaOutput.kind(p.kind))\(p.areaOf.map { " (bought as \($0))" } ?? "")")
        if let terms = p.area {
            TerminalText.print(
                "  per area:   up to \(ByteSize.format(Int(terms.maxBytes))) (\(terms.maxBytes) bytes),"
                    + " cut from \(terms.sources.joined(separator: ", "))"
            )
            TerminalText.print(
                "  buy:        `trailmap regions area quote LAT,LON --radius-km R --product \(p.productId)`,"
                    + " then `trailmap regions area buy QUOTE_ID`"
            )
        }
        TerminalText.print("  version:    \(p.version)")
        TerminalText.print("  size:       \(ByteSize.format(Int(p.size))) (\(p.size) bytes)")
        TerminalText.print("  zoom:       \(p.minzoom)-\(p.maxzoom)")
        TerminalText.print("  bounds:     \(p.bounds.map { String(format: "%.4f", $0) }.joined(separator: ", ")) (W, S, E, N)")
        TerminalText.print("  sha256:     \(p.sha256)")
        if !p.levels.isEmpty {
            TerminalText.print("Levels of detail:")
            for l in p.levels { TerminalText.print("  \(l.summary)") }
        }
    }

    static func status(_ report: StatusReport) {
        if let reason = report.offlineReason { TerminalText.print("Offline: showing what is installed here (\(reason))\n") }
        if report.regions.isEmpty {
            TerminalText.print("No regions installed.")
        } else {
            table(
                ["ID", "KIND", "NAME", "VERSION", "SIZE", "STATUS", "FILE"],
                report.regions.map { e in
                    var status = e.status.display
                    if e.status == .updateAvailable, let v = e.latestVersion {
                        let size = e.updateBytes.map { ", \(ByteSize.format(Int($0)))\(e.updateByPatch ? " by patch" : "")" } ?? ""
                        status += " (v\(v)\(size))"
                    }
                    if !e.filePresent { status += ", file missing" }
                    return [
                        e.region.productId, RegionsAreaOutput.kind(e.kind), e.region.title ?? "", "\(e.region.version)",
                        ByteSize.format(Int(e.region.size)), status, e.region.file
                    ]
                })
        }
        let budget = report.storageBudget.map { " of \(ByteSize.format(Int($0))) budget" } ?? ""
        TerminalText.print("\nStorage used: \(ByteSize.format(Int(report.usedBytes)))\(budget)")
        let updates = report.regions.filter { $0.status == .updateAvailable }.count
        if updates > 0 { TerminalText.print("\(updates) update(s) available: run `trailmap regions update`.") }
    }

    static func installed(_ o: InstallOutcome) {
        let name = o.region.title ?? o.region.productId
        if o.alreadyInstalled {
            TerminalText.print("\(name) version \(o.region.version) is already installed at \(o.region.file).")
        } else {
            if let p = o.patch {
                TerminalText.print(
                    """
                    Updated \(name) from version \(p.fromVersion) to \(p.toVersion) by \(p.patches) patch\(p.patches == 1 ? "" : "es") \
                    at \(o.region.file), content verified: downloaded \(ByteSize.format(Int(p.downloadedBytes))) instead of \
                    \(ByteSize.format(Int(p.fullSize))) (saved \(ByteSize.format(Int(p.savedBytes)))).
                    """
                )
                warn(o.warning)
                return
            }
            let resumed = o.resumedFrom > 0 ? " (resumed from \(ByteSize.format(Int(o.resumedFrom))))" : ""
            let from = o.previousVersion.map { ", replacing version \($0)" } ?? ""
            TerminalText.print("Installed \(name) version \(o.region.version)\(from) at \(o.region.file), SHA-256 verified\(resumed).")
            if let reason = o.patchFallback { warn("the patches could not be used, so the whole bundle was downloaded: \(reason)") }
        }
        warn(o.warning)
    }

    static func warn(_ message: String?) {
        guard let message else { return }
        FileHandle.standardError.write(Data(("warning: " + TerminalText.clean(message) + "\n").utf8))
    }
}
