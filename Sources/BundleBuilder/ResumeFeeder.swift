import Raster
import TileGeometry
import TileStore

/// Units an earlier run of a killed build finished: counted as done, and their recorded roots
/// (read back from the partial file) given to the levels above the unit zoom, before any thread
/// starts; the tiles those roots complete are written at once.
struct ResumeFeeder {
    let run: BandRun

    /// Feeds `finished` (in order) and writes what they complete. `recordedRoot` reads a
    /// finished unit's recorded root from the partial file (nil: transparent).
    func feed(
        _ finished: [TileID], recordedRoot: (TileID) throws(BuildError) -> RGBAImage?,
        writer: BundleWriter
    ) throws(BuildError) {
        var made = CollectedTiles()
        for unit in finished {
            run.countSubtree(unit)
            guard let upper = run.upper else { continue }
            try upper.add(unit, .image(try recordedRoot(unit))) { tile, tileMade throws(BuildError) in
                try made.add(tile, tileMade, in: run)
            }
        }
        run.count(run.upper?.takeProduced() ?? 0)
        try made.write(to: writer)
    }
}

extension BundleBuilder {
    /// A recorded unit root's pixels (nil: transparent).
    static func decodeRoot(_ data: [UInt8]?, unit: TileID) throws(BuildError) -> RGBAImage? {
        guard let data else { return nil }
        do throws(TileCodecError) { return try TileDecoder.decode(data) } catch { throw .encode(tile: unit, error) }
    }
}
