import Foundation
import Trails
import TrailSources

// Trails as data, timed for scripts/bench/trails-data.sh to set beside GDAL, osmium and a
// GeoPackage queried through SQLite's R*Tree.
// Usage:
//   trails-data-bench ingest FILE.osm.pbf OUT.mbtiles [--sort-by-id]
//       reads the file with the OpenStreetMap preset (TrailIngest) and writes its trails into
//       OUT.mbtiles (an existing bundle: tiles and metadata tables; TrailStoreWriter).
//       --sort-by-id (an experiment): hands the writer the trails in id order, the order of
//       the table's B-tree, instead of the file's (counted in the read time).
//   trails-data-bench search BUNDLE N [--points FILE] [--seed S] [--radius-km R] [--warmup W] [--out FILE]
//       N radius + filter searches (difficulty easy or moderate, uses foot, excludes horse,
//       limit 20) around the points of FILE ("lon lat" a line, used in turn), or else around
//       the starts of trails drawn at random (seeded); W untimed searches first.
//       --out writes "total nearest_m" a line, one line a timed search.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("trails-data-bench: \(message)\n".utf8))
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name) else { return nil }
    guard i + 1 < args.count else { fail("\(name) needs a value") }
    let v = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return v
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// This process's CPU time (user + system) in seconds, and its peak resident size in MB.
func usage() -> (cpu: Double, peakMB: Double) {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    let cpu = Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    return (cpu, Double(u.ru_maxrss) / 1024)
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
}

/// A small seeded generator (SplitMix64), so that runs draw the same points.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@MainActor func ingest() {
    let sortByID = args.contains("--sort-by-id")
    args.removeAll { $0 == "--sort-by-id" }
    guard args.count == 3 else { fail("usage: trails-data-bench ingest FILE.osm.pbf OUT.mbtiles [--sort-by-id]") }
    let input = args[1], bundle = args[2]
    let clock = ContinuousClock()
    let t0 = clock.now
    var result: TrailIngestResult
    do { result = try TrailIngest.read(path: input, options: TrailIngestOptions(mapping: .osm)) } catch { fail("\(error)") }
    if sortByID { result.trails.sort { $0.id < $1.id } }
    let read = clock.now - t0
    let t1 = clock.now
    do { try TrailStoreWriter.write(result.trails, toBundle: bundle) } catch { fail("\(error)") }
    let write = clock.now - t1
    let total = clock.now - t0
    let u = usage()
    let points = result.trails.reduce(0) { $0 + $1.geometry.parts.reduce(0) { $0 + $1.count } }
    print(
        String(
            format:
                """
                ingest: lines %d, trails %d, points %d, read %.3f s, write %.3f s, total %.3f s, cpu %.3f s, peak %.0f MB, bundle %d bytes
                """,
            result.lineFeatures, result.trails.count, points, seconds(read), seconds(write), seconds(total), u.cpu, u.peakMB,
            fileSize(bundle)))
}

@MainActor func search() {
    let pointsPath = option("--points")
    let seed = UInt64(option("--seed") ?? "37") ?? 37
    let radius = Double(option("--radius-km") ?? "10") ?? 10
    let warmup = Int(option("--warmup") ?? "50") ?? 50
    let outPath = option("--out")
    guard args.count == 3, let n = Int(args[2]), n > 0 else {
        fail("usage: trails-data-bench search BUNDLE N [--points FILE] [--seed S] [--radius-km R] [--warmup W] [--out FILE]")
    }
    let index: TrailIndex
    do { index = try TrailIndex(bundle: args[1]) } catch { fail("\(error)") }
    var points = [LonLat]()
    if let pointsPath {
        guard let text = try? String(contentsOfFile: pointsPath, encoding: .utf8) else { fail("cannot read \(pointsPath)") }
        points = text.split(separator: "\n").compactMap { row in
            let f = row.split(separator: " ").compactMap { Double($0) }
            return f.count == 2 ? LonLat(lon: f[0], lat: f[1]) : nil
        }
    } else {
        let all: [TrailRecord]
        do { all = try index.all() } catch { fail("\(error)") }
        var rng = SplitMix(state: seed)
        points = (0..<(n + warmup)).compactMap { _ in all.randomElement(using: &rng)?.start }
    }
    guard !points.isEmpty else { fail("no points") }
    func query(_ i: Int) -> TrailQuery {
        var q = TrailQuery()
        q.near = points[i % points.count]
        q.radiusKm = radius
        q.difficulties = [.easy, .moderate]
        q.uses = .of(.foot)
        q.excludeUses = .of(.horse)
        q.limit = 20
        return q
    }
    do {
        for i in 0..<warmup { _ = try index.search(query(i)) }
    } catch { fail("\(error)") }
    let clock = ContinuousClock()
    var times = [Double]()
    var lines = [String]()
    var totalHits = 0
    for i in 0..<n {
        let q = query(warmup + i)
        let t0 = clock.now
        let page: TrailPage
        do { page = try index.search(q) } catch { fail("\(error)") }
        times.append(seconds(clock.now - t0) * 1000)
        totalHits += page.total
        lines.append("\(page.total) \(page.hits.first?.distanceMetres.map { String(format: "%.1f", $0) } ?? "-")")
    }
    if let outPath {
        do { try (lines.joined(separator: "\n") + "\n").write(toFile: outPath, atomically: true, encoding: .utf8) } catch {
            fail("\(error)")
        }
    }
    let sorted = times.sorted()
    func pct(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)] }
    print(
        String(
            format: "search: queries %d, radius %.1f km, mean hits %.1f, p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.3f ms, mean %.3f ms",
            n, radius, Double(totalHits) / Double(n), pct(50), pct(95), pct(99), sorted.last ?? 0,
            times.reduce(0, +) / Double(n)))
}

switch args.first {
case "ingest": ingest()
case "search": search()
default: fail("usage: trails-data-bench ingest FILE.osm.pbf OUT.mbtiles | search BUNDLE N [options]")
}
