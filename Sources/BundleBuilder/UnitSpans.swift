import Synchronization

/// Hands a band's units (in Morton order) to the rendering threads: one contiguous span a thread,
/// taken from its front in runs of neighbouring units, so that threads work in different parts of
/// the region and a source block (a 1024-px JPEG 2000 tile, a JPEG-compressed strip) is decoded
/// by one thread's dataset rather than by each (GDAL datasets are per thread, and so are their
/// block caches). A thread whose span is done takes runs from the back of the span with the most
/// left, so the threads finish together.
final class UnitSpans: Sendable {
    private let spans: Mutex<[Range<Int>]>
    /// Units a thread takes at a time.
    let run: Int

    init(count: Int, threads: Int) {
        let each = (count + threads - 1) / max(threads, 1)
        spans = Mutex((0..<max(threads, 1)).map { i in min(i * each, count)..<min((i + 1) * each, count) })
        run = max(1, min(16, each / 8))
    }

    /// The next units (indices) for thread `thread`, or nil when every unit has been handed out.
    func take(thread: Int) -> Range<Int>? {
        spans.withLock { s in
            if !s[thread].isEmpty {
                let r = s[thread].lowerBound..<min(s[thread].lowerBound + run, s[thread].upperBound)
                s[thread] = r.upperBound..<s[thread].upperBound
                return r
            }
            guard let j = s.indices.max(by: { s[$0].count < s[$1].count }), !s[j].isEmpty else { return nil }
            let r = max(s[j].lowerBound, s[j].upperBound - run)..<s[j].upperBound
            s[j] = s[j].lowerBound..<r.lowerBound
            return r
        }
    }
}
