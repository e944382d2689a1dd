import Foundation
import Raster
import TileGeometry

/// A source whose header and georeference were read, not yet decoded.
public struct SourceInfo: Sendable {
    public let path: String
    public let width: Int
    public let height: Int
    public let georeference: Georeference
    /// Extent in degrees (unclipped).
    public let bounds: GeoBounds
}

/// Checks sources before anything is written, then decodes them.
enum SourceLoader {
    /// Reads each source's PNG header and georeference; any problem is an error naming the file.
    static func inspect(_ path: String, worldFileCRS: CRS) throws(BuildError) -> SourceInfo {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            throw .sourceMissing(path: path)
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        guard size > 0 else { throw .sourceEmpty(path: path) }
        let reader: PNGRowReader
        do { reader = try PNGRowReader(path: path) } catch { throw .sourceUnreadable(path: path, error) }
        let g: Georeference
        do {
            g = try GeoreferenceLocator.locate(image: path, width: reader.width, height: reader.height, worldFileCRS: worldFileCRS)
        } catch { throw .georeference(error) }
        let bounds = g.geoBounds(width: reader.width, height: reader.height)
        guard bounds.clippedToMercator != nil,
              g.crs == .epsg3857 || (bounds.west >= -180.5 && bounds.east <= 180.5 && bounds.south >= -90.5 && bounds.north <= 90.5)
        else { throw .outsideMercator(path: path, bounds: bounds) }
        return SourceInfo(path: path, width: reader.width, height: reader.height, georeference: g, bounds: bounds)
    }

    /// Decodes a source into a pyramid, in memory when it fits `memoryBudget`, else spilled to `scratch`.
    static func load(_ info: SourceInfo, memoryBudget: Int, scratch: String) throws(BuildError) -> GeoreferencedSource {
        do {
            let reader = try PNGRowReader(path: info.path)
            let pyramid = try SourcePyramid(reader: reader, memoryBudget: memoryBudget, spillDirectory: scratch)
            return GeoreferencedSource(pyramid: pyramid, georeference: info.georeference)
        } catch let error as PNGError {
            throw .sourceUnreadable(path: info.path, error)
        } catch {
            throw .pixels(path: info.path, reason: "\(error)")
        }
    }
}
