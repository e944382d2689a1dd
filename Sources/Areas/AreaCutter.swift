import Foundation
import Raster
import TileGeometry
import TileStore
import Trails

/// Cuts an area out of an area product's bundles into one new bundle. A tile only one bundle
/// holds is copied as it is; where several hold the same tile, the first bundle's is taken when
/// it is opaque, else the tiles are joined (`Compositing.join`, first on top: neighbouring regions'
/// partial coverages along their shared border add up) and encoded again (PNG, lossless WebP,
/// or JPEG when opaque). The bundles' trails whose lines cross the area go with it, whole (rows as
/// stored, with their spatial and name indexes), so the area is searchable offline; a trail two
/// bundles hold is taken once, from the first.
struct AreaCutter {
    let sources: AreaSources

    /// Writes the tiles of `bounds` at `zooms` and the trails crossing `bounds` to `output`
    /// (replaced only when complete).
    func cut(bounds: GeoBounds, zooms: ClosedRange<Int>, metadata: BundleMetadata, to output: String) throws(AreaError) -> BundleWriteStats
    {
        let format = TileFormat(metadata: sources.sources[0].metadata.format) ?? .png
        var encoding = TileEncoding(png: .default)
        encoding.format = format
        encoding.lossless = true
        let writer: BundleWriter
        do { writer = try BundleWriter(path: output) } catch { throw .cutFailed("\(output): \(error)") }
        do {
            for z in zooms { try cutZoom(z, bounds: bounds, format: format, encoding: encoding, writer: writer) }
            let stats = try writer.finish(metadata: metadata)
            try copyTrails(within: bounds, to: output)
            return stats
        } catch let e as AreaError {
            writer.abandon()
            throw e
        } catch {
            writer.abandon()
            throw .cutFailed("\(error)")
        }
    }

    /// The sources' trails crossing `bounds`, into the finished bundle at `output` (removed when they fail).
    private func copyTrails(within bounds: GeoBounds, to output: String) throws(AreaError) {
        let box = TrailBox(west: bounds.west, south: bounds.south, east: bounds.east, north: bounds.north)
        do {
            try TrailStoreWriter.copyRows(from: sources.sources.map(\.path), to: output, within: box, duplicates: .keepFirst)
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw .cutFailed("trails: \(error)")
        }
    }

    private func cutZoom(_ z: Int, bounds: GeoBounds, format: TileFormat, encoding: TileEncoding, writer: BundleWriter) throws {
        // Which sources hold each tile, in priority order.
        var holders = [TileID: [Int]]()
        var ranges = [Int: TileRange]()
        for (i, s) in sources.sources.enumerated() where s.zooms.contains(z) {
            guard let part = bounds.intersection(s.metadata.bounds) else { continue }
            let range = TileRange(bounds: part, zoom: z)
            ranges[i] = range
            for t in try s.reader.tileSizes(range: range) { holders[t.tile, default: []].append(i) }
        }
        var batch = [(tile: TileID, data: [UInt8])]()
        func flush(_ force: Bool) throws {
            guard force || batch.count >= 256 else { return }
            try writer.add(batch)
            batch.removeAll(keepingCapacity: true)
        }
        // Tiles of one source, streamed from it.
        for (i, range) in ranges.sorted(by: { $0.key < $1.key }) {
            var failure: (any Error)?
            try sources.sources[i].reader.forEachTile(range: range) { t, data in
                guard holders[t] == [i] else { return true }
                batch.append((t, [UInt8](data)))
                do { try flush(false) } catch { failure = error; return false }
                return true
            }
            if let failure { throw failure }
        }
        // Tiles several sources hold.
        for (t, owners) in holders where owners.count > 1 {
            var images = [(bytes: [UInt8], image: RGBAImage)]()
            for i in owners {
                guard let data = try sources.sources[i].reader.tile(t) else { continue }
                let bytes = [UInt8](data)
                images.append((bytes, try TileDecoder.decode(bytes)))
            }
            guard let first = images.first else { continue }
            if first.image.isOpaque || images.count == 1 {
                batch.append((t, first.bytes))
            } else {
                var canvas = images[images.count - 1].image
                for layer in images.dropLast().reversed() where layer.image.width == canvas.width && layer.image.height == canvas.height {
                    Compositing.join(layer.image, onto: &canvas)
                }
                guard !canvas.isFullyTransparent else { continue }
                var e = encoding
                if format == .jpg { e.quality = 90 }
                batch.append((t, try e.encode(canvas)))
            }
            try flush(false)
        }
        try flush(true)
    }
}
