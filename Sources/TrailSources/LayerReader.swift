import CGDAL
import Foundation
import Trails

/// Turns the features of one layer into trail records: the mapping's fields resolved to column
/// indexes (or tags), the geometry checked and transformed to WGS 84.
final class LayerReader {
    let path: String
    let layerName: String
    let mapping: TrailFieldMapping
    let options: TrailIngestOptions
    let toWGS84: ToWGS84
    /// Column index of each field name the mapping reads (absent: a tag, when the mapping has a tags field).
    private let columns: [String: Int32]
    private let tagsColumn: Int32?
    private let nameField: String?
    private let refField: String?

    init(layer: OGRLayerH, path: String, mapping: TrailFieldMapping, options: TrailIngestOptions) throws(TrailIngestError) {
        self.path = path
        self.mapping = mapping
        self.options = options
        let layerName = VectorFile.name(of: layer)
        self.layerName = layerName
        let fields = VectorFile.fields(of: layer)
        var columns = [String: Int32]()
        for (i, f) in fields.enumerated() { columns[f] = Int32(i) }
        self.columns = columns
        let tagsColumn = mapping.tagsField.flatMap { columns[$0] }
        self.tagsColumn = tagsColumn
        for (field, role) in mapping.namedFields where columns[field] == nil && tagsColumn == nil && mapping.absentFieldsAreEmpty != true {
            throw .missingField(path: path, layer: layerName, field: field, role: role)
        }
        // The generic mapping takes name and ref fields by name, whatever their case.
        nameField = mapping.name ?? fields.first { $0.lowercased() == "name" }
        refField = mapping.ref ?? fields.first { $0.lowercased() == "ref" }
        toWGS84 = try ToWGS84(layer: layer, fallbackCRS: options.assumedCRS, path: path)
    }

    /// A feature's trail; nil for a feature the filter leaves out or one without lines (counted in `result`).
    func record(_ f: OGRFeatureH, result: inout TrailIngestResult) throws(TrailIngestError) -> TrailRecord? {
        let fid = Int64(OGR_F_GetFID(f))
        var tags: [String: String]?
        func value(_ field: String) throws(TrailIngestError) -> String? {
            if let i = columns[field] {
                guard OGR_F_IsFieldSetAndNotNull(f, i) != 0, let raw = OGR_F_GetFieldAsString(f, i) else { return nil }
                guard let s = String(validatingCString: raw) else {
                    throw .invalidText(path: path, layer: layerName, feature: fid, field: field)
                }
                let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
                return t.isEmpty ? nil : t
            }
            guard tagsColumn != nil, let tagsField = mapping.tagsField else { return nil }
            if tags == nil { tags = HStore.parse(try value(tagsField) ?? "") }
            let t = tags?[field]?.trimmingCharacters(in: .whitespacesAndNewlines)
            return t?.isEmpty == false ? t : nil
        }
        guard let g = OGR_F_GetGeometryRef(f) else {
            result.nonLineFeatures += 1
            return nil
        }
        let type = OGR_GT_Flatten(OGR_G_GetGeometryType(g))
        guard type == wkbLineString || type == wkbMultiLineString || type == wkbGeometryCollection else {
            result.nonLineFeatures += 1
            return nil
        }
        for (field, allowed) in (mapping.filter ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let v = try value(field)?.lowercased(), allowed.contains(where: { $0.lowercased() == v }) else {
                result.filteredOut += 1
                return nil
            }
        }
        var lines = [OGRGeometryH]()
        Self.collectLines(g, into: &lines)
        if type == wkbGeometryCollection, lines.isEmpty {
            result.nonLineFeatures += 1
            return nil
        }
        result.lineFeatures += 1
        let geometry = try self.geometry(lines, fid: fid)
        let name = try nameField.flatMap { field throws(TrailIngestError) in try value(field) }
        let ref = try refField.flatMap { field throws(TrailIngestError) in try value(field) }
        var difficulty = TrailDifficulty.unknown
        for field in mapping.difficulty ?? [] {
            if let v = try value(field)?.lowercased(), let d = mapping.difficultyValues?[field]?[v] {
                difficulty = d
                break
            }
        }
        var allowed = TrailUses(), forbidden = TrailUses()
        for (field, byValue) in mapping.impliedUses ?? [:] {
            if let v = try value(field)?.lowercased(), let uses = byValue[v] { allowed.formUnion(TrailUses(uses)) }
        }
        for (useName, field) in mapping.uses ?? [:] {
            guard let use = TrailUse(rawValue: useName), let v = try value(field)?.lowercased() else { continue }
            switch mapping.useValues?[v] {
            case .allowed?: allowed.insert(.of(use)); forbidden.remove(.of(use))
            case .forbidden?: forbidden.insert(.of(use)); allowed.remove(.of(use))
            case nil: break
            }
        }
        let surface = try mapping.surface.flatMap { field throws(TrailIngestError) in try value(field) }
        let identity: String
        let source: String
        if let idField = mapping.id, let v = try value(idField) {
            identity = "\(mapping.idNamespace ?? "field:\(idField)"):\(v)"
            source = identity
        } else {
            source = "\((path as NSString).lastPathComponent):\(layerName):\(fid)"
            identity =
                "geom:\(name ?? "")|\(ref ?? "")|"
                + geometry.parts.map { part in
                    part.map { "\(Int(($0.lon * GeometryCodec.scale).rounded())),\(Int(($0.lat * GeometryCodec.scale).rounded()))" }
                        .joined(separator: ";")
                }.joined(separator: "/")
        }
        return TrailRecord(
            id: TrailID(identity: identity), name: name, ref: ref, difficulty: difficulty, allowedUses: allowed,
            forbiddenUses: forbidden, surface: surface, geometry: geometry, source: source)
    }

    static func collectLines(_ g: OGRGeometryH, into out: inout [OGRGeometryH]) {
        let type = OGR_GT_Flatten(OGR_G_GetGeometryType(g))
        if type == wkbLineString {
            out.append(g)
        } else if type == wkbMultiLineString || type == wkbGeometryCollection {
            for i in 0..<OGR_G_GetGeometryCount(g) {
                if let sub = OGR_G_GetGeometryRef(g, i) { collectLines(sub, into: &out) }
            }
        }
    }

    /// The lines' points in WGS 84, repeated points dropped; each part needs two distinct points.
    func geometry(_ lines: [OGRGeometryH], fid: Int64) throws(TrailIngestError) -> TrailGeometry {
        let total = lines.reduce(0) { $0 + Int(OGR_G_GetPointCount($1)) }
        guard total <= options.maxPointsPerTrail else {
            throw .tooManyPoints(path: path, layer: layerName, feature: fid, count: total, limit: options.maxPointsPerTrail)
        }
        var parts = [[LonLat]]()
        for line in lines {
            let n = Int(OGR_G_GetPointCount(line))
            guard n > 0 else { continue }
            var xs = [Double](repeating: 0, count: n), ys = [Double](repeating: 0, count: n)
            xs.withUnsafeMutableBytes { x in
                ys.withUnsafeMutableBytes { y in
                    _ = OGR_G_GetPoints(
                        line, x.baseAddress, Int32(MemoryLayout<Double>.stride), y.baseAddress,
                        Int32(MemoryLayout<Double>.stride), nil, 0)
                }
            }
            guard toWGS84.apply(xs: &xs, ys: &ys) else {
                throw .degenerateGeometry(path: path, layer: layerName, feature: fid, reason: "coordinates cannot be transformed to WGS 84")
            }
            var part = [LonLat]()
            part.reserveCapacity(n)
            for i in 0..<n {
                let p = LonLat(lon: xs[i], lat: ys[i])
                guard p.lon.isFinite, p.lat.isFinite, (-180...180).contains(p.lon), (-90...90).contains(p.lat) else {
                    throw .degenerateGeometry(
                        path: path, layer: layerName, feature: fid,
                        reason: "point \(i) (\(xs[i]), \(ys[i])) is not a longitude and latitude")
                }
                // Points closer than the stored precision are one point.
                if let last = part.last, abs(last.lon - p.lon) < 5e-7, abs(last.lat - p.lat) < 5e-7 { continue }
                if let last = part.last, abs(last.lon - p.lon) > 180 {
                    throw .crossesAntimeridian(path: path, layer: layerName, feature: fid)
                }
                part.append(p)
            }
            if part.count >= 2 { parts.append(part) }
        }
        guard !parts.isEmpty else {
            throw .degenerateGeometry(
                path: path, layer: layerName, feature: fid,
                reason: total == 0 ? "the line is empty" : "the line has fewer than two distinct points")
        }
        return TrailGeometry(parts: parts)
    }
}
