import Foundation
import Raster
import TrailRendering

// Renders trail lines from a GeoJSON file into the tiles of a list and times the rendering
// alone (no encoding), for scripts/bench/trails-render.sh to set beside Mapnik.
// Usage: trails-render-bench LINES.geojson TILES.txt [--style STYLE.json] [--out DIR]
//   TILES.txt: one "z x y" per line. --out writes DIR/z/x/y.png (after timing).

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("trails-render-bench: \(message)\n".utf8))
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
let stylePath = option("--style")
let outDir = option("--out")
guard args.count == 2 else { fail("usage: trails-render-bench LINES.geojson TILES.txt [--style STYLE.json] [--out DIR]") }

let style: TrailStyle
do {
    style =
        try stylePath.map { try JSONDecoder().decode(TrailStyle.self, from: Data(contentsOf: URL(fileURLWithPath: $0))) } ?? TrailStyle()
} catch { fail("style: \(error)") }

let lines: [TrailLine]
do { lines = try GeoJSONLines.read(args[0]) } catch { fail("\(error)") }
guard let tileText = try? String(contentsOfFile: args[1], encoding: .utf8) else { fail("cannot read \(args[1])") }
let tiles: [(Int, Int, Int)] = tileText.split(separator: "\n").compactMap { row in
    let f = row.split(separator: " ").compactMap { Int($0) }
    return f.count == 3 ? (f[0], f[1], f[2]) : nil
}

/// This thread's CPU time in seconds (the machine may be shared: wall time alone is noisy).
func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

let clock = ContinuousClock()
let loadStart = clock.now
let renderer = TrailTileRenderer(lines: lines, style: style)
let prepare = clock.now - loadStart
var perZoom = [Int: (tiles: Int, seconds: Double, cpu: Double)]()
var images = [(Int, Int, Int, RGBAImage)]()
let start = clock.now
var cpuTotal = 0.0
for (z, x, y) in tiles {
    let t0 = clock.now
    let c0 = cpuSeconds()
    let image: RGBAImage
    do { image = try renderer.render(z: z, x: x, y: y) } catch { fail("tile \(z)/\(x)/\(y): \(error)") }
    let d = clock.now - t0
    let cpu = cpuSeconds() - c0
    cpuTotal += cpu
    let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    perZoom[z, default: (0, 0, 0)].tiles += 1
    perZoom[z, default: (0, 0, 0)].seconds += s
    perZoom[z, default: (0, 0, 0)].cpu += cpu
    if outDir != nil { images.append((z, x, y, image)) }
}
let total = clock.now - start
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
print(
    String(
        format: "lines %d, prepare %.3f s, tiles %d, render %.3f s, cpu %.3f s",
        lines.count, seconds(prepare), tiles.count, seconds(total), cpuTotal))
for z in perZoom.keys.sorted() {
    print(String(format: "z%d %d tiles %.3f s, cpu %.3f s", z, perZoom[z]!.tiles, perZoom[z]!.seconds, perZoom[z]!.cpu))
}
if let dir = outDir {
    for (z, x, y, image) in images {
        let folder = "\(dir)/\(z)/\(x)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            let png = try PNGEncoder.encode(image, options: PNGEncodingOptions(effort: .fast))
            try Data(png).write(to: URL(fileURLWithPath: "\(folder)/\(y).png"))
        } catch { fail("writing \(folder)/\(y).png: \(error)") }
    }
}
