import Foundation
import Logging
import SourceReaders
import Synchronization

/// A source whose driver draws its pixels (a GeoPDF, `RasterDescription.drawsPages`), drawn once
/// for the whole build. Each GDAL handle of a PDF draws the whole page again on its first read,
/// so one handle per rendering thread drew every page once per thread: twice the CPU on two
/// threads, no faster than one, and a page's bitmap in memory per thread. Here the first thread
/// that needs the source draws it into a GeoTIFF in the scratch folder (only sources a tile
/// touches are drawn; different sources are drawn by different threads at once); the others
/// wait for it, and every thread then reads that copy. The file is unlinked before GDAL writes
/// it, and written and read through `/proc/self/fd`, so nothing is left behind however the
/// build ends (a build stopped while drawing left it).
final class RenderedPage: Sendable {
    /// The sources being drawn now, for the build's progress.
    final class Drawings: Sendable {
        private let paths = Mutex<[String]>([])
        var current: [String] { paths.withLock { $0 } }
        func begin(_ path: String) { paths.withLock { $0.append(path) } }
        func end(_ path: String) { paths.withLock { if let i = $0.firstIndex(of: path) { $0.remove(at: i) } } }
    }

    private enum State {
        case pending
        case drawn(RasterDescription, descriptor: Int32)
        case failed(SourceReaderError)
    }

    private let source: RasterDescription
    private let scratch: String
    private let logger: Logger
    private let drawings: Drawings
    private let state = Mutex<State>(.pending)

    init(_ source: RasterDescription, scratch: String, logger: Logger, drawings: Drawings) {
        self.source = source
        self.scratch = scratch
        self.logger = logger
        self.drawings = drawings
    }

    deinit {
        state.withLock { if case let .drawn(_, descriptor) = $0 { close(descriptor) } }
    }

    /// The source's description reading the drawn copy; the first call draws it, later ones
    /// (from any thread) wait for that and share its result, an error included.
    func description() throws(SourceReaderError) -> RasterDescription {
        try state.withLock { (state: inout State) throws(SourceReaderError) -> RasterDescription in
            switch state {
            case let .drawn(description, _):
                return description
            case let .failed(error):
                throw error
            case .pending:
                do throws(SourceReaderError) {
                    let (description, descriptor) = try draw()
                    state = .drawn(description, descriptor: descriptor)
                    return description
                } catch {
                    state = .failed(error)
                    throw error
                }
            }
        }
    }

    private func draw() throws(SourceReaderError) -> (RasterDescription, Int32) {
        let file = URL(fileURLWithPath: scratch).appendingPathComponent(".trailmap-page-\(getpid())-\(UUID().uuidString.prefix(8)).tif")
            .path
        // Unlinked before anything is written: GDAL writes and threads read it through the
        // descriptor, so no interruption leaves it behind.
        let descriptor = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .readFailed(path: source.path, reason: "drawing it into \(file) failed: \(String(cString: strerror(errno)))")
        }
        unlink(file)
        let copy = "/proc/self/fd/\(descriptor)"
        let start = Date()
        drawings.begin(source.path)
        defer { drawings.end(source.path) }
        logger.info("drawing \(source.path) (\(source.width)x\(source.height) px) once for every thread: a PDF page is drawn, not decoded")
        do {
            try RasterDataset(path: source.path, openOptions: source.openOptions, checkingOptions: false).copyToGeoTIFF(copy)
        } catch {
            close(descriptor)
            throw error
        }
        var description = source
        description.renderedCopy = copy
        logger.notice("drew \(source.path) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        return (description, descriptor)
    }
}
