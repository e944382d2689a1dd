import Foundation
import Logging
import Synchronization
import Trails

/// The tiles folder's place file (`Gazetteer`), reopened when it is loaded again.
final class PlaceShelf: Sendable {
    let path: String
    private let logger: Logger
    private let current = Mutex<(identity: FileIdentity, gazetteer: Gazetteer)?>(nil)

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// The place called `name`, or nil (also when no place file is loaded).
    func lookup(_ name: String) -> Place? {
        guard let identity = FileIdentity(path: path) else { return nil }
        if let (id, g) = current.withLock({ $0 }), id == identity { return g.lookup(name) }
        do throws(GazetteerError) {
            let g = try Gazetteer(path: path)
            current.withLock { $0 = (identity, g) }
            return g.lookup(name)
        } catch {
            logger.warning("the place file cannot be read: \(error)")
            return nil
        }
    }
}
