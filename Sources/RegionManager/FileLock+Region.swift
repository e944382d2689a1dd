import Essentials
import Foundation

extension FileLock {
    /// Takes the lock; `busy` is the error when another process holds it (without `wait`).
    convenience init(path: String, wait: Bool, busy: @autoclosure () -> RegionManagerError) throws {
        do { try self.init(path: path, wait: wait) } catch {
            switch error {
            case .busy: throw busy()
            case let .system(e): throw RegionManagerError(e)
            }
        }
    }
}
