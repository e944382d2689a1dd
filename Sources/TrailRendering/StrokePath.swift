import CCairo

/// Adds pieces of lines to a Cairo path in a window's pixel coordinates, leaving out points
/// less than `minStep` pixels from the last one kept and segments wholly beyond one side of
/// the window (and its margin), so a line of a million vertices costs what the window shows.
struct StrokePath {
    let trails: ProjectedTrails
    let scale: Double
    let originX: Double
    let originY: Double
    let width: Double
    let height: Double
    let margin: Double

    /// Points closer than this to the last one kept are skipped (the last point of a piece never is).
    static let minStep = 0.35

    private func outcode(_ x: Double, _ y: Double) -> Int {
        (x < -margin ? 1 : 0) | (x > width + margin ? 2 : 0) | (y < -margin ? 4 : 0) | (y > height + margin ? 8 : 0)
    }

    func add(_ chunk: ProjectedTrails.Chunk, to cr: OpaquePointer) {
        trails.xy.withUnsafeBufferPointer { xy in
            var penDown = false
            var lastX = 0.0, lastY = 0.0, lastCode = 0
            let end = chunk.start + chunk.count
            for i in chunk.start..<end {
                let x = xy[2 * i] * scale - originX, y = xy[2 * i + 1] * scale - originY
                let code = outcode(x, y)
                if i == chunk.start {
                    lastX = x; lastY = y; lastCode = code
                    continue
                }
                if lastCode & code != 0 {
                    // Wholly beyond one side: lift the pen.
                    penDown = false
                    lastX = x; lastY = y; lastCode = code
                    continue
                }
                let dx = x - lastX, dy = y - lastY
                if penDown, i != end - 1, dx * dx + dy * dy < Self.minStep * Self.minStep { continue }
                if !penDown {
                    cairo_move_to(cr, lastX, lastY)
                    penDown = true
                }
                cairo_line_to(cr, x, y)
                lastX = x; lastY = y; lastCode = code
            }
        }
    }
}
