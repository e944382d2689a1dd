/// Hands pieces of lines, as segments in a window's pixel coordinates, to a rasterizer. Segments wholly beyond
/// one side of the window (and its margin) are left out, and what remains is simplified
/// (Douglas–Peucker) to within `tolerance` of a pixel, so a line of a million vertices, or a
/// dense network at a low zoom, costs what the window shows rather than what the data holds.
struct StrokePath {
    let trails: ProjectedTrails
    let scale: Double
    let originX: Double
    let originY: Double
    let width: Double
    let height: Double
    let margin: Double

    /// The simplified line stays within this many pixels of the true one.
    static let tolerance = 0.2

    private func outcode(_ x: Double, _ y: Double) -> Int {
        (x < -margin ? 1 : 0) | (x > width + margin ? 2 : 0) | (y < -margin ? 4 : 0) | (y > height + margin ? 8 : 0)
    }

    /// Hands the chunk's visible runs, simplified, segment by segment to `segment`; `run` and
    /// `keep` are scratch buffers.
    func add(
        _ chunk: ProjectedTrails.Chunk, run: inout [SIMD2<Double>], keep: inout [Bool],
        segment: (SIMD2<Double>, SIMD2<Double>) -> Void
    ) {
        run.removeAll(keepingCapacity: true)
        trails.xy.withUnsafeBufferPointer { xy in
            var lastCode = 0
            for i in chunk.start..<(chunk.start + chunk.count) {
                let p = SIMD2(xy[2 * i] * scale - originX, xy[2 * i + 1] * scale - originY)
                let code = outcode(p.x, p.y)
                if i > chunk.start, lastCode & code != 0 {
                    // The segment to here is wholly beyond one side: lift the pen.
                    emit(&run, &keep, segment)
                }
                run.append(p)
                lastCode = code
            }
        }
        emit(&run, &keep, segment)
    }

    /// Hands the run's segments, simplified, to `segment` and empties it.
    private func emit(_ run: inout [SIMD2<Double>], _ keep: inout [Bool], _ segment: (SIMD2<Double>, SIMD2<Double>) -> Void) {
        defer { run.removeAll(keepingCapacity: true) }
        guard run.count >= 2 else { return }
        keep.removeAll(keepingCapacity: true)
        keep.append(contentsOf: repeatElement(false, count: run.count))
        keep[0] = true
        keep[run.count - 1] = true
        Self.simplify(run, 0, run.count - 1, &keep)
        var last = run[0]
        for i in 1..<run.count where keep[i] {
            segment(last, run[i])
            last = run[i]
        }
    }

    /// Douglas–Peucker: marks the points of `p[a...b]` to keep.
    static func simplify(_ p: [SIMD2<Double>], _ a: Int, _ b: Int, _ keep: inout [Bool]) {
        var stack = [(a, b)]
        let t2 = tolerance * tolerance
        while let (s, e) = stack.popLast() {
            guard e > s + 1 else { continue }
            let d = p[e] - p[s]
            let len2 = (d * d).sum()
            var worst = -1.0, index = s
            for i in (s + 1)..<e {
                let v = p[i] - p[s]
                let dist2: Double
                let along = (v * d).sum()
                if len2 == 0 || along < 0 {
                    // Beyond the start (a run may turn back): the distance is to the start.
                    dist2 = (v * v).sum()
                } else if along > len2 {
                    let w = p[i] - p[e]
                    dist2 = (w * w).sum()
                } else {
                    let cross = v.x * d.y - v.y * d.x
                    dist2 = cross * cross / len2
                }
                if dist2 > worst { worst = dist2; index = i }
            }
            if worst > t2 {
                keep[index] = true
                stack.append((s, index))
                stack.append((index, e))
            }
        }
    }
}
