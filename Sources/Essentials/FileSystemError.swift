/// A file operation of this module that failed: the file and the system's reason.
public enum FileSystemError: Error, Equatable, CustomStringConvertible {
    /// There is no file at `path`.
    case notFound(path: String)
    /// The file exists but an operation on it failed.
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file"
        case let .failed(path, reason): "\(path): \(reason)"
        }
    }

    /// The failure `errno` describes, for `path`.
    public static func errno(_ path: String) -> FileSystemError {
        .failed(path: path, reason: String(cString: strerror(Foundation.errno)))
    }
}

import Foundation
