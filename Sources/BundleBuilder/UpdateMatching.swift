import Foundation
import SourceReaders

/// An update's sources' records (content hash, footprint), each source hashed once and only when
/// an update needs it.
final class SourceHashes {
    let sources: [PlannedSource]
    private var byIndex: [Int: BuildRecord.Source] = [:]

    init(sources: [PlannedSource]) {
        self.sources = sources
    }

    /// Source `i`'s record, hashed now unless it was before.
    func record(_ i: Int) throws(BuildError) -> BuildRecord.Source {
        if let known = byIndex[i] { return known }
        let now = try BuildRecord.sources([sources[i]])[0]
        byIndex[i] = now
        return now
    }

    /// The records hashed so far, in source order.
    var records: [BuildRecord.Source] { byIndex.keys.sorted().map { byIndex[$0]! } }
}

/// An update's layers matched to the bundle's by what they are: a layer named after its first
/// source (`BuildLayer.namedFromSources`) whose sources moved to another folder gets another
/// name; when one of its sources has the content of one the bundle's layer at its place was
/// built from, or the file name of one, it is that layer, and keeps its name and title.
enum LayerMatching {
    /// `options`' layers with the names and titles of the bundle's layers they are
    /// (`recordedJSON`: the bundle's tile settings as recorded; `recorded`: its sources).
    /// Layers named by the user are left as they are. Throws when a layer named after its
    /// sources has another name than the bundle's layer at its place and no source of the same
    /// content or file name as one of that layer's.
    static func adopt(
        _ options: BuildOptions, recordedJSON: String?, recorded: [BuildRecord.Source], hashes: SourceHashes,
        bundle: String
    ) throws(BuildError) -> BuildOptions {
        guard let recordedJSON,
            let object = (try? JSONSerialization.jsonObject(with: Data(recordedJSON.utf8))) as? [String: Any],
            let oldLayers = object["layers"] as? [[String: Any]], oldLayers.count == options.layers.count
        else { return options }
        var adopted = options
        for (l, layer) in options.layers.enumerated() where layer.namedFromSources {
            guard let oldName = oldLayers[l]["name"] as? String, let oldTitle = oldLayers[l]["title"] as? String,
                oldName != layer.name || (oldTitle != layer.title && layer.title == layer.name)
            else { continue }
            let oldHashes = Set(recorded.filter { $0.layer == l && !$0.sha256.isEmpty }.map(\.sha256))
            let oldFiles = Set(recorded.filter { $0.layer == l }.map { URL(fileURLWithPath: $0.path).lastPathComponent })
            var same = false
            let mine = hashes.sources.indices.filter { hashes.sources[$0].layer == l }
            // Sheets of the same file names (new editions), else of the same content.
            if mine.contains(where: { oldFiles.contains(URL(fileURLWithPath: hashes.sources[$0].info.path).lastPathComponent) }) {
                same = true
            }
            for i in mine where !same {
                if oldHashes.contains(try hashes.record(i).sha256) {
                    same = true
                    break
                }
            }
            guard same else { throw .update(path: bundle, .otherLayer(layer: l + 1, name: layer.name, recordedName: oldName)) }
            adopted.layers[l].name = oldName
            if layer.title == layer.name { adopted.layers[l].title = oldTitle }
        }
        return adopted
    }
}
