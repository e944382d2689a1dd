import Foundation
import Raster
import Synchronization
import TileGeometry
import TileStore

/// `--update EXISTING`: which sources changed since EXISTING was built, and so which tiles must be
/// made again. A source is matched by layer and path; one whose size and modification time are
/// as recorded is unchanged, else its content hash decides. A source at a path the bundle does
/// not record is matched by content (hash and footprint) in its layer: the same sheet moved to
/// another folder is unchanged. A new sheet and a gone one of the same file name in a layer are
/// one changed sheet (a new edition in a new folder). The footprints of added, removed and
/// changed sources (old and new) are the changed area; a tile that meets none of them is kept
/// from EXISTING (its bytes copied; a whole untouched subtree in one statement).
struct SourceChanges: Equatable {
    var added: [String] = []
    var removed: [String] = []
    var changed: [String] = []
    /// Sources found at another path than recorded, with the same content (old path, new path).
    var moved: [Moved] = []
    /// Per layer, the footprints whose tiles must be made again.
    var dirty: [[MercatorBounds]]
    /// Records of the sources hashed here (their stamp differed), for the new build record.
    var hashed: [BuildRecord.Source] = []

    struct Moved: Equatable {
        var from: String
        var to: String
    }

    var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// `stamps`: the sources' sizes and modification times as the build began. `hashes`: the
    /// sources' records hashed so far (more are hashed here as needed).
    static func between(
        old: [BuildRecord.Source], new sources: [PlannedSource], stamps: [SourceFileStamp],
        layers: Int, hashes: SourceHashes? = nil
    ) throws(BuildError) -> SourceChanges {
        let hashes = hashes ?? SourceHashes(sources: sources)
        var changes = SourceChanges(dirty: Array(repeating: [], count: layers))
        var remaining = Array(old.enumerated())
        var kept = [(old: Int, new: Int)]()
        var unmatched = [Int]()
        for (i, source) in sources.enumerated() {
            let info = source.info, layer = source.layer
            guard let o = remaining.firstIndex(where: { $0.element.layer == layer && $0.element.path == info.path }) else {
                unmatched.append(i)
                continue
            }
            let (oldIndex, before) = remaining.remove(at: o)
            let stamp = stamps[i]
            // A footprint that moved (a sidecar world file or .aux.xml edited) is a change whatever the stamp.
            var same =
                stamp.size == before.size && stamp.modifiedNanoseconds == before.modified
                && BuildRecord.footprint(info) == before.footprint
            if !same {
                let now = try hashes.record(i)
                same = now.sha256 == before.sha256 && now.footprint == before.footprint
            }
            if same {
                kept.append((oldIndex, i))
            } else {
                changes.changed.append(info.path)
                changes.dirty[layer] += [before.mercatorBounds] + info.mercatorParts
            }
        }
        // Sources at new paths: the same content in the same layer is the same source moved.
        var fresh = [Int]()
        for i in unmatched {
            let now = try hashes.record(i)
            if let o = remaining.firstIndex(where: {
                $0.element.layer == now.layer && !now.sha256.isEmpty
                    && $0.element.sha256 == now.sha256 && $0.element.footprint == now.footprint
            }) {
                let (oldIndex, before) = remaining.remove(at: o)
                changes.moved.append(Moved(from: before.path, to: sources[i].info.path))
                kept.append((oldIndex, i))
            } else {
                fresh.append(i)
            }
        }
        for i in fresh {
            let info = sources[i].info, layer = sources[i].layer
            let name = URL(fileURLWithPath: info.path).lastPathComponent
            if let o = remaining.firstIndex(where: {
                $0.element.layer == layer && URL(fileURLWithPath: $0.element.path).lastPathComponent == name
            }) {
                // Another edition of a sheet, in another folder.
                let before = remaining.remove(at: o).element
                changes.changed.append(info.path)
                changes.dirty[layer] += [before.mercatorBounds] + info.mercatorParts
            } else {
                changes.added.append(info.path)
                changes.dirty[layer] += info.mercatorParts
            }
        }
        for (_, gone) in remaining where gone.layer < layers {
            changes.removed.append(gone.path)
            changes.dirty[gone.layer].append(gone.mercatorBounds)
        }
        // Sources kept but drawn in another order: where they overlap, the tiles change.
        kept.sort { $0.new < $1.new }
        if kept.map(\.old) != kept.map(\.old).sorted() {
            for (_, i) in kept { changes.dirty[sources[i].layer] += sources[i].info.mercatorParts }
        }
        changes.hashed = hashes.records
        return changes
    }
}

/// What an update's rendering needs: the changed area of one zoom band, the trails' neighbourhood
/// to draw again, and the old bundle's tiles.
final class UpdateScope: Sendable {
    let dirty: [MercatorBounds]
    /// Where the trails are drawn again (nil: the update redraws no trails).
    let trails: TrailRedraw?
    /// The old bundle's tile bytes (read through the writer's connection, where it is attached).
    private let writer: BundleWriter
    private let rendered = Atomic<Int>(0)

    init(dirty: [MercatorBounds], trails: TrailRedraw? = nil, writer: BundleWriter) {
        self.dirty = dirty
        self.trails = trails
        self.writer = writer
    }

    /// True when no changed source's footprint meets the tile (the test the renderer uses to pick
    /// a tile's sources) and no trail is near it, so the old tile is what a full build would make.
    func isUnchanged(_ t: TileID) -> Bool {
        let b = t.mercatorBounds
        return !dirty.contains { $0.intersects(b) } && !(trails?.touches(t) ?? false)
    }

    /// The old bundle's pixels of `t` (nil where it has no tile).
    func oldImage(_ t: TileID) throws(BuildError) -> RGBAImage? {
        let data: Data?
        do { data = try writer.baseTile(t) } catch { throw .store(error) }
        guard let data else { return nil }
        do throws(TileCodecError) { return try TileDecoder.decode([UInt8](data)) } catch { throw .encode(tile: t, error) }
    }

    func countRendered(_ n: Int) { rendered.add(n, ordering: .relaxed) }
    var renderedCount: Int { rendered.load(ordering: .relaxed) }
}

/// What `--update` did.
public struct UpdateSummary: Sendable, Equatable {
    /// Source files added, removed and changed since the old bundle was built.
    public var sourcesAdded: [String]
    public var sourcesRemoved: [String]
    public var sourcesChanged: [String]
    /// Sources at new paths whose content is that of recorded ones (unchanged, moved).
    public var sourcesMoved: [String] = []
    /// Tiles made again (rendered from the sources or from the zoom below), and tiles kept.
    public var tilesRendered: Int
    public var tilesKept: Int
    /// Against the old bundle: tiles new, gone and with other bytes.
    public var tilesAdded: Int
    public var tilesRemoved: Int
    public var tilesChanged: Int
    /// The trails or their style changed (their records were written again).
    public var trailsChanged = false
    /// The tiles near trails were drawn again (in any update of a bundle with trails).
    public var trailsRedrawn = false
}

/// The bundle an update starts from, checked.
struct UpdateBase {
    let path: String
    let record: [String: String]
    let sources: [BuildRecord.Source]

    /// Opens `path` and checks it can be updated with `tileSettings` (`json`: what they hash).
    static func open(_ path: String, tileSettings: String, json: String) throws(BuildError) -> UpdateBase {
        let base = try read(path)
        try base.check(tileSettings: tileSettings, json: json)
        return base
    }

    /// Opens `path` and reads its record of the build: sources and settings.
    static func read(_ path: String) throws(BuildError) -> UpdateBase {
        let record: [String: String]
        do { record = try BundleReader(path: path).buildRecord() } catch {
            // The bundle's errors name it already.
            let message = "\(error)"
            throw .update(path: path, .unreadable(message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message))
        }
        guard let sources = BuildRecord.decode([BuildRecord.Source].self, record[BuildRecord.sourcesKey]) else {
            throw .update(path: path, .noSourcesRecorded)
        }
        if record[BuildRecord.shardKey] != nil {
            throw .update(path: path, .shardPart)
        }
        return UpdateBase(path: path, record: record, sources: sources)
    }

    /// Checks the bundle can be updated with `tileSettings` (`json`: what they hash).
    func check(tileSettings: String, json: String) throws(BuildError) {
        // Trails (records, style, zooms) may change: the update draws their neighbourhood again.
        var sameButTrails = false
        if let recorded = record[BuildRecord.tileSettingsJSONKey], let hash = record[BuildRecord.tileSettingsKey] {
            sameButTrails = BuildFingerprint.sameIgnoringTrails(recorded, hash: hash, json)
        }
        guard record[BuildRecord.tileSettingsKey] == tileSettings || sameButTrails else {
            let builder = (try? BundleReader(path: path).metadataPairs())?["trailmap:builder"]
            let differing = record[BuildRecord.tileSettingsJSONKey].map { BuildFingerprint.differences($0, json) } ?? []
            throw .update(path: path, .otherSettings(differing: differing, builtBy: builder == BundleBuilder.version ? nil : builder))
        }
    }
}

/// What an update starts from: the bundle updated, how the sources changed since it was built,
/// and where the trails are drawn again (`changed`: the trails or their style changed).
struct UpdateSetup {
    var base: UpdateBase
    var changes: SourceChanges
    var redraw: (trails: TrailRedraw?, changed: Bool) = (nil, false)

    /// The update's summary once its bands are rendered (`scopes`, one a band).
    func summary(scopes: [UpdateScope], writer: BundleWriter) throws(BuildError) -> UpdateSummary {
        let diff: (added: Int, removed: Int, changed: Int)
        do { diff = try writer.compareWithBase() } catch { throw .store(error) }
        let rendered = scopes.reduce(0) { $0 + $1.renderedCount }
        return UpdateSummary(
            sourcesAdded: changes.added, sourcesRemoved: changes.removed,
            sourcesChanged: changes.changed, sourcesMoved: changes.moved.map(\.to),
            tilesRendered: rendered,
            tilesKept: writer.stats.keptTiles, tilesAdded: diff.added, tilesRemoved: diff.removed,
            tilesChanged: diff.changed, trailsChanged: redraw.changed, trailsRedrawn: redraw.trails != nil)
    }
}
