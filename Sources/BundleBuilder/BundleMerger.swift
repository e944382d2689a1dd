import Foundation
import Logging
import Raster
import TileGeometry
import TileStore
import Trails

/// Joins the parts of a sharded build (`BuildOptions.shard`) into one bundle, identical in tiles to a
/// single-machine build. Each part holds the subtrees of its units (every zoom from the unit zoom
/// down) and records each unit's root losslessly; the merge copies the parts' tiles and makes the
/// zooms above the units from all the roots, exactly as a single build makes them from the
/// rendered images (same 2×2 means, same encoder settings, recorded in the parts). When the build
/// drew trails, every part stores their records: the merge draws them over the levels it makes
/// (with the style recorded in the parts) and copies the records once into the result.
public struct BundleMerger: Sendable {
    public let parts: [String]
    public let output: String
    private let logger: Logger

    public init(parts: [String], output: String, logger: Logger = Logger(label: "trailmap.merge")) {
        self.parts = parts
        self.output = output
        self.logger = logger
    }

    /// What a merge produced.
    public struct Report: Sendable {
        public var parts: Int
        public var tiles: Int
        public var upperTiles: Int
        public var bytes: Int
        public var seconds: TimeInterval
    }

    private struct Part {
        var path: String
        var reader: BundleReader
        var shard: ShardSpec
        var record: [String: String]
        var plan: BuildRecord.Plan
        /// The sources by layer and content (paths may differ between machines).
        var sources: [String]
    }

    /// Checks the parts, then writes `output`.
    public func merge() throws(BuildError) -> Report {
        let start = Date()
        let checked = try check()
        let plan = checked[0].plan
        let trails = try trails(of: checked)
        let writer: BundleWriter
        do { writer = try BundleWriter(path: output) } catch { throw .store(error) }
        do throws(BuildError) {
            for part in checked {
                logger.info("copying \(part.path) (part \(part.shard))")
                do { try writer.copyTiles(from: part.path) } catch { throw .store(error) }
            }
            let copied = writer.stats.tiles
            let encoding = plan.encoding
            for (b, band) in plan.bands.enumerated() {
                try upperLevels(
                    band: b, of: band, parts: checked, tileSize: plan.tileSize, encoding: encoding, trails: trails, writer: writer)
            }
            var problems = [String]()
            let pairs: [String: String]
            do { pairs = try checked[0].reader.metadataPairs() } catch { throw .store(error) }
            var metadata = BundleMetadata(pairs: pairs, problems: &problems)
            var record = checked[0].record
            if record[BuildRecord.regionFromFileKey] == "1" {
                metadata.extra["trailmap:region"] = URL(fileURLWithPath: output).deletingPathExtension().lastPathComponent
            }
            for key in [BuildRecord.shardKey, BuildRecord.planKey, BuildRecord.regionFromFileKey] { record[key] = nil }
            let stats: BundleWriteStats
            do { stats = try writer.finish(metadata: metadata, record: record) } catch { throw .store(error) }
            if trails != nil {
                do throws(TrailStoreError) {
                    try TrailStoreWriter.copyRows(from: checked.map(\.path), to: output, within: nil, duplicates: .reject)
                } catch {
                    try? FileManager.default.removeItem(atPath: output)
                    throw .trailStore(error)
                }
            }
            return Report(
                parts: checked.count, tiles: stats.tiles, upperTiles: stats.tiles - copied, bytes: stats.storedBytes,
                seconds: Date().timeIntervalSince(start))
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Every part of one build, each once: the same settings, the same sources (by content), N parts.
    private func check() throws(BuildError) -> [Part] {
        guard !parts.isEmpty else { throw .merge(path: output, "no parts given") }
        var found = [Part]()
        for path in parts {
            let reader: BundleReader, record: [String: String]
            do {
                reader = try BundleReader(path: path)
                record = try reader.buildRecord()
            } catch { throw .merge(path: path, "\(error)") }
            guard let shardText = record[BuildRecord.shardKey], let shard = try? ShardSpec(parsing: shardText),
                let plan = BuildRecord.decode(BuildRecord.Plan.self, record[BuildRecord.planKey]),
                let sources = BuildRecord.decode([BuildRecord.Source].self, record[BuildRecord.sourcesKey])
            else {
                throw .notAShardPart(path: path)
            }
            found.append(
                Part(
                    path: path, reader: reader, shard: shard, record: record, plan: plan,
                    sources: sources.map { "\($0.layer):\($0.sha256)" }))
        }
        let first = found[0]
        for part in found.dropFirst() {
            if part.shard.count != first.shard.count {
                throw .merge(
                    path: part.path,
                    "part \(part.shard) is of a build cut in \(part.shard.count) parts, \(first.path) of one cut in \(first.shard.count)")
            }
            if part.record[BuildRecord.settingsKey] != first.record[BuildRecord.settingsKey] || part.plan != first.plan {
                throw .merge(path: part.path, "built with other settings (zooms, layers, format, encoder or texts) than \(first.path)")
            }
            if part.sources != first.sources {
                throw .merge(path: part.path, "built from other sources (by content) than \(first.path)")
            }
        }
        var byIndex = [Int: String]()
        for part in found {
            if let other = byIndex[part.shard.index] {
                throw .merge(path: part.path, "\(other) is part \(part.shard) too: give each part once")
            }
            byIndex[part.shard.index] = part.path
        }
        let missing = (1...first.shard.count).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            throw .merge(
                path: output,
                """
                part\(missing.count > 1 ? "s" : "") \(missing.map { "\($0)/\(first.shard.count)" }.joined(separator: ", ")) missing: \
                give every part of the build
                """
            )
        }
        return found.sorted { $0.shard.index < $1.shard.index }
    }

    /// The trails the parts' build drew, read back from the first part, with the recorded style
    /// (nil when it drew none). Every part must hold them.
    private func trails(of parts: [Part]) throws(BuildError) -> PreparedTrails? {
        guard let plan = parts[0].plan.trails else {
            // A part of a build with trails made before parts recorded them.
            if let json = parts[0].record[BuildRecord.tileSettingsJSONKey],
                let settings = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any], settings["trails"] is [Any]
            {
                throw .partWithoutTrails(path: parts[0].path)
            }
            return nil
        }
        var records = [TrailRecord]()
        for (i, part) in parts.enumerated() {
            do throws(TrailStoreError) {
                let index = try TrailIndex(bundle: part.path)
                if i == 0 { records = try index.all() }
            } catch .noTrails {
                throw .partWithoutTrails(path: part.path)
            } catch {
                throw .trailStore(error)
            }
        }
        var options = TrailLayerOptions(sources: [])
        (options.name, options.title, options.style) = (plan.name, plan.title, plan.style)
        options.zooms = plan.zooms.count == 2 && plan.zooms[0] <= plan.zooms[1] ? plan.zooms[0]...plan.zooms[1] : nil
        guard options.zooms != nil, let prepared = PreparedTrails(options: options, records: records) else {
            throw .partWithoutTrails(path: parts[0].path)
        }
        return prepared
    }

    /// The zooms of `band` above its units, from the recorded roots of every part, in Morton order,
    /// with the trails drawn over them where the build draws them.
    private func upperLevels(
        band b: Int, of band: BuildRecord.Plan.Band, parts: [Part], tileSize: Int, encoding: TileEncoding,
        trails: PreparedTrails?, writer: BundleWriter
    ) throws(BuildError) {
        let minZ = band.zooms[0]
        guard band.unitZoom > minZ else { return }
        var units = [(unit: BuildUnit, part: Part)]()
        for part in parts {
            let mine: [BuildUnit]
            do { mine = try part.reader.buildUnits() } catch { throw .store(error) }
            units += mine.filter { $0.band == b }.map { ($0, part) }
        }
        let upper = UpperLevels(units: units.map(\.unit.tile), minZoom: minZ, unitZoom: band.unitZoom, tileSize: tileSize)
        units.sort { BuildUnits.morton($0.unit.tile) < BuildUnits.morton($1.unit.tile) }
        var batch = [(tile: TileID, data: [UInt8])]()
        func emit(_ tile: TileID, _ made: UpperTile) throws(BuildError) {
            guard case var .made(image) = made else { return }
            if let trails, let zooms = trails.options.zooms, trails.draws(tile.z, build: zooms) {
                image = try trails.drawn(over: image, tile: tile, tileSize: tileSize)
            }
            do throws(TileCodecError) { batch.append((tile, try encoding.encode(image))) } catch { throw .encode(tile: tile, error) }
        }
        func flush() throws(BuildError) {
            do { try writer.add(batch) } catch { throw .store(error) }
            batch.removeAll(keepingCapacity: true)
        }
        for (unit, part) in units {
            let data: [UInt8]?
            do { data = try part.reader.unitRoot(unit) } catch { throw .store(error) }
            try upper.add(unit.tile, .image(try BundleBuilder.decodeRoot(data, unit: unit.tile)), emit: emit)
            if batch.count >= 256 { try flush() }
        }
        try upper.flush(emit: emit)
        try flush()
    }
}
