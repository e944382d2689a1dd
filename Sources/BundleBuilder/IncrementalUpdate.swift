import Foundation
import Raster
import Synchronization
import TileGeometry
import TileStore

/// `--update EXISTING`: which sources changed since EXISTING was built, and so which tiles must be
/// made again. A source is matched by layer and path; one whose size and modification time are
/// as recorded is unchanged, else its content hash decides. The footprints of added, removed and
/// changed sources (old and new) are the changed area; a tile that meets none of them is kept
/// from EXISTING (its bytes copied; a whole untouched subtree in one statement).
struct SourceChanges: Equatable {
    var added: [String] = []
    var removed: [String] = []
    var changed: [String] = []
    /// Per layer, the footprints whose tiles must be made again.
    var dirty: [[MercatorBounds]]
    /// Records of the sources hashed here (their stamp differed), for the new build record.
    var hashed: [BuildRecord.Source] = []

    var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// `stamps`: the sources' sizes and modification times as the build began.
    static func between(old: [BuildRecord.Source], new infos: [SourceInfo], stamps: [SourceFileStamp], layerOf: [Int],
                        layers: Int) throws(BuildError) -> SourceChanges {
        var changes = SourceChanges(dirty: Array(repeating: [], count: layers))
        var remaining = old
        var keptOld = [Int](), keptNew = [Int]()
        for (i, info) in infos.enumerated() {
            let layer = layerOf[i]
            guard let o = remaining.firstIndex(where: { $0.layer == layer && $0.path == info.path }) else {
                changes.added.append(info.path)
                changes.dirty[layer] += info.mercatorParts
                continue
            }
            let before = remaining.remove(at: o)
            let stamp = stamps[i]
            // A footprint that moved (a sidecar world file or .aux.xml edited) is a change whatever the stamp.
            var same = stamp.size == before.size && stamp.modifiedNanoseconds == before.modified
                && BuildRecord.footprint(info) == before.footprint
            if !same {
                let now = try BuildRecord.sources([info], layerOf: [layer])[0]
                changes.hashed.append(now)
                same = now.sha256 == before.sha256 && now.footprint == before.footprint
            }
            if same {
                keptOld.append(old.firstIndex(of: before)!)
                keptNew.append(i)
            } else {
                changes.changed.append(info.path)
                changes.dirty[layer] += [before.mercatorBounds] + info.mercatorParts
            }
        }
        for gone in remaining where gone.layer < layers {
            changes.removed.append(gone.path)
            changes.dirty[gone.layer].append(gone.mercatorBounds)
        }
        // Sources kept but drawn in another order: where they overlap, the tiles change.
        if keptOld != keptOld.sorted() {
            for i in keptNew { changes.dirty[layerOf[i]] += infos[i].mercatorParts }
        }
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
        return UpdateBase(path: path, record: record, sources: sources)
    }
}
