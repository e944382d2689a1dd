import ArgumentParser
import Foundation
import TileStore

/// `trailmap bundle export FILE --dir OUT/`: the tiles as plain files, for static file servers.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            """
            Write a bundle's tiles as OUT/{z}/{x}/{y}.EXT (XYZ rows; png, webp or jpg as the bundle's format) plus OUT/metadata.json, or \
            as one PMTiles archive.
            """,
        discussion: """
            OUT is created if needed. An OUT that exists and is not empty is refused unless --force, \
            which replaces files of the same names and leaves others alone. Every file is written under \
            a temporary name and renamed into place, so an interrupted export never leaves a truncated \
            tile; metadata.json is written last.

            EXT is the bundle's format, for every tile: a jpg bundle's tiles with transparency are \
            PNG bytes in .jpg files, as the server answers them at .jpg URLs, so that one URL \
            template ({z}/{x}/{y}.jpg) reaches every tile; browsers decode tiles by their bytes.
            """)

    @Argument(help: "The .mbtiles file.") var file: String
    @Option(name: .long, help: "Output folder.") var dir: String?
    @Option(
        name: .long,
        help: "Write one PMTiles v3 archive instead (Hilbert-ordered, deduplicated, run-length encoded), for object storage behind a CDN.")
    var pmtiles: String?
    @Flag(name: .long, help: "Write into a folder that is not empty.") var force = false
    @Flag(name: .long, help: "Print JSON.") var json = false
    @Option(
        name: .long,
        help:
            """
            With --pmtiles: the store's catalog (\(CatalogLocation.help)), to say which products sell the bundle (an archive is public \
            once uploaded).
            """
    )
    var catalog: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (dir == nil) != (pmtiles == nil) else { throw ValidationError("give either --dir OUT/ or --pmtiles OUT.pmtiles") }
        if let pmtiles, !pmtiles.hasSuffix(".pmtiles") { throw ValidationError("--pmtiles must end in .pmtiles") }
        if let catalog {
            guard pmtiles != nil else { throw ValidationError("--catalog goes with --pmtiles") }
            _ = try CatalogLocation(catalog)
        }
    }

    func run() async throws {
        if let pmtiles {
            // The archive is read by Range requests with no check of who reads: a bundle sold in
            // the store would be free to anyone with its URL (shown even with --quiet).
            if let line = try await publicArchiveLine() { FileHandle.standardError.write(Data((line + "\n").utf8)) }
            let start = Date()
            let s = try PMTilesExporter.export(from: file, to: pmtiles)
            if json {
                try JSONOutput.print(
                    CommandReports.ArchiveExport(
                        pmtiles: pmtiles, addressedTiles: s.addressedTiles, entries: s.entries, contents: s.contents,
                        leafDirectories: s.leafDirectories, bytes: s.bytes, seconds: Date().timeIntervalSince(start)))
            } else if !global.quiet {
                print(
                    String(
                        format: "%@: %d tiles in %d directory entries (run-length), %d distinct contents, %d leaf directories, %@, %.1f s",
                        pmtiles, s.addressedTiles, s.entries, s.contents, s.leafDirectories, ByteSize.format(Int(s.bytes)),
                        Date().timeIntervalSince(start)))
            }
            return
        }
        guard let dir else { return }
        let interactive = isatty(STDERR_FILENO) == 1
        let start = Date()
        var last = start, live = false
        let stats = try BundleExporter.export(from: file, to: dir, force: force) { p in
            // A live line on a terminal, a line every 5 s otherwise (as `build` does).
            guard !global.quiet, p.done % 64 == 0 else { return }
            let now = Date()
            guard now.timeIntervalSince(last) >= (interactive ? 0.2 : 5) else { return }
            last = now
            let line = String(
                format: "tiles %d/%d (%.1f%%), %@", p.done, p.total,
                p.total > 0 ? Double(p.done) * 100 / Double(p.total) : 100, ByteSize.format(p.bytes))
            FileHandle.standardError.write(Data((interactive ? "\r\u{1B}[K" + line : line + "\n").utf8))
            live = interactive
        }
        if live { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if stats.invalidRows > 0 {
            var err = FileHandle.standardError
            print("warning: \(file): skipped \(stats.invalidRows) row(s) with impossible z/x/y", to: &err)
        }
        if json {
            let zooms = stats.tilesPerZoom.keys.sorted()
            try JSONOutput.print(
                CommandReports.FolderExport(
                    dir: dir, tiles: stats.tiles, bytes: stats.bytes, minzoom: zooms.first, maxzoom: zooms.last,
                    fileExtension: stats.fileExtension,
                    invalidRowsSkipped: stats.invalidRows, seconds: Date().timeIntervalSince(start)))
        } else if !global.quiet {
            let zooms = stats.tilesPerZoom.keys.sorted()
            let range = zooms.isEmpty ? "no zoom levels" : "zoom \(zooms.first ?? 0)-\(zooms.last ?? 0)"
            print(
                String(
                    format: "%@: %d tiles (%@, %@) as {z}/{x}/{y}.%@ and metadata.json, %.1f s",
                    dir, stats.tiles, ByteSize.format(stats.bytes), range, stats.fileExtension,
                    Date().timeIntervalSince(start)))
        }
    }

    /// The general note, or with --catalog a warning naming the products that sell the bundle
    /// (nothing when none does).
    private func publicArchiveLine() async throws -> String? {
        guard let catalog else { return PaidBundleNote.general }
        let location = try CatalogLocation(catalog)
        guard location.exists else { throw CommandFailure("no catalog at \(location)") }
        let store = try await location.open(logger: global.logger("trailmap.catalog"))
        defer { CatalogLocation.close(store) }
        return PaidBundleNote.line(file: file, sellers: try await PaidBundleNote.sellers(of: file, in: store))
    }
}
