import Foundation
import Trails

/// Joins the segments of one named trail: features with the same name and ref whose ends lie
/// within a tolerance of each other become one trail. Its lines are chained end to end (reversing
/// segments as needed); its difficulty is the hardest known of its segments; a use is allowed
/// when every segment allows it and forbidden when any forbids it; its surface is the one of
/// the longest length. Its id is made from its members' ids (`TrailID`).
enum TrailJoiner {
    static func join(_ trails: [TrailRecord], toleranceMetres: Double) -> (trails: [TrailRecord], joinedCount: Int) {
        var groups = [String: [Int]]()
        for (i, t) in trails.enumerated() {
            guard let name = t.name else { continue }
            groups["\(name)\u{1f}\(t.ref ?? "")", default: []].append(i)
        }
        var parent = Array(trails.indices)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        // Ends are bucketed in cells at least the tolerance wide: only ends in neighbouring cells can touch.
        let cellDegrees = max(toleranceMetres, 0.01) / 100_000
        func cell(_ p: LonLat) -> SIMD2<Int64> {
            SIMD2(Int64((p.lat / cellDegrees).rounded(.down)), Int64((p.lon * cos(p.lat * .pi / 180) / cellDegrees).rounded(.down)))
        }
        for members in groups.values where members.count > 1 {
            var grid = [SIMD2<Int64>: [Int]]()
            for i in members {
                for p in ends(trails[i].geometry) { grid[cell(p), default: []].append(i) }
            }
            for i in members {
                for p in ends(trails[i].geometry) {
                    let c = cell(p)
                    for dy in -1...1 {
                        for dx in -1...1 {
                            for j in grid[c &+ SIMD2(Int64(dy), Int64(dx))] ?? [] where j != i && find(i) != find(j) {
                                if ends(trails[j].geometry).contains(where: { Geodesic.distance(p, $0) <= toleranceMetres }) {
                                    parent[find(i)] = find(j)
                                }
                            }
                        }
                    }
                }
            }
        }
        var components = [Int: [Int]]()
        var order = [Int]()
        for i in trails.indices {
            let root = find(i)
            if components[root] == nil { order.append(root) }
            components[root, default: []].append(i)
        }
        var out = [TrailRecord]()
        var joined = 0
        for root in order {
            guard let members = components[root] else { continue }
            if members.count == 1 { out.append(trails[members[0]]); continue }
            joined += 1
            out.append(merge(members.map { trails[$0] }, toleranceMetres: toleranceMetres))
        }
        return (out, joined)
    }

    static func ends(_ g: TrailGeometry) -> [LonLat] {
        g.parts.flatMap { [$0.first, $0.last].compactMap { $0 } }
    }

    static func merge(_ members: [TrailRecord], toleranceMetres: Double) -> TrailRecord {
        let first = members[0]
        var remaining = members.flatMap(\.geometry.parts)
        var parts = [[LonLat]]()
        while !remaining.isEmpty {
            var chain = remaining.removeFirst()
            var grew = true
            while grew {
                grew = false
                for (k, part) in remaining.enumerated() {
                    guard let cs = chain.first, let ce = chain.last, let ps = part.first, let pe = part.last else { continue }
                    if Geodesic.distance(ce, ps) <= toleranceMetres {
                        chain += part.dropFirst(ce == ps ? 1 : 0)
                    } else if Geodesic.distance(ce, pe) <= toleranceMetres {
                        chain += part.reversed().dropFirst(ce == pe ? 1 : 0)
                    } else if Geodesic.distance(pe, cs) <= toleranceMetres {
                        chain = part + chain.dropFirst(pe == cs ? 1 : 0)
                    } else if Geodesic.distance(ps, cs) <= toleranceMetres {
                        chain = Array(part.reversed()) + chain.dropFirst(ps == cs ? 1 : 0)
                    } else {
                        continue
                    }
                    remaining.remove(at: k)
                    grew = true
                    break
                }
            }
            parts.append(chain)
        }
        let known = members.map(\.difficulty).filter { $0 != .unknown }
        var allowed = TrailUses.all, forbidden = TrailUses()
        var surfaceLength = [String: Double]()
        for m in members {
            allowed.formIntersection(m.allowedUses)
            forbidden.formUnion(m.forbiddenUses)
            if let s = m.surface { surfaceLength[s, default: 0] += m.lengthMetres }
        }
        let surface = surfaceLength.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        let identity = "join:" + members.map(\.id).sorted().map(\.description).joined(separator: ",")
        return TrailRecord(
            id: TrailID(identity: identity), name: first.name, ref: first.ref, difficulty: known.max() ?? .unknown,
            allowedUses: allowed.subtracting(forbidden), forbiddenUses: forbidden, surface: surface,
            geometry: TrailGeometry(parts: parts), source: "join of \(members.count) segments")
    }
}
