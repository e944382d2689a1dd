import ArgumentParser
import BundleBuilder
import Foundation

/// `trailmap bundle merge`: the parts of a sharded build → one bundle.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract:
            "Join the parts of a sharded build (trailmap build --shard K/N) into one bundle, the same tiles as a build on one machine.")

    @Argument(help: "Every part of the build (.mbtiles files written with --shard K/N), in any order.") var parts: [String]
    @Option(name: .long, help: "Output .mbtiles path.") var out: String
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if parts.isEmpty { throw ValidationError("give the parts to merge") }
        if !out.hasSuffix(".mbtiles") { throw ValidationError("--out must end in .mbtiles") }
        let target = URL(fileURLWithPath: out).standardized.path
        if parts.contains(where: { URL(fileURLWithPath: $0).standardized.path == target }) {
            throw ValidationError("--out must differ from every part")
        }
    }

    func run() throws {
        let report = try BundleMerger(parts: parts, output: out, logger: global.logger("trailmap.merge")).merge()
        if json {
            try JSONOutput.print(
                CommandReports.Merge(
                    out: out, parts: report.parts, tiles: report.tiles, upperTiles: report.upperTiles,
                    bytes: report.bytes, seconds: report.seconds))
        } else if !global.quiet {
            print(
                String(
                    format: "%@: %d parts merged, %d tiles (%d made above the parts' units), %@, %.1f s",
                    out, report.parts, report.tiles, report.upperTiles, ByteSize.format(report.bytes), report.seconds))
        }
    }
}
