import Foundation

/// What can go wrong making, storing or applying a bundle patch.
public enum PatchError: Error, CustomStringConvertible, Equatable {
    /// A bundle, index or patch that cannot be read or written (the file and the reason).
    case file(path: String, reason: String)
    /// A patch that is not one (bad format, truncated, corrupt): the file and the reason.
    case corrupt(path: String, reason: String)
    /// The bundle a patch is applied to is not the version the patch starts from.
    case wrongBase(path: String, expected: String, found: String)
    /// The patched bundle's content differs from the published version's.
    case resultMismatch(expected: String, found: String)
    /// A patch file that could do more than a patch may: something other than the patch's tables
    /// in it (a view, trigger, virtual table, generated column, explicit index), or more rows or
    /// bytes than a file of its size can hold. Nothing was applied.
    case unsafe(path: String, reason: String)
    /// Applying the patches would make the bundle larger than `limit` bytes (the room allowed, or
    /// what patches of their size can add). Nothing was kept.
    case tooLarge(limit: Int64)

    public var description: String {
        switch self {
        case let .file(path, reason): "\(path): \(reason)"
        case let .corrupt(path, reason): "\(path): not a valid patch: \(reason)"
        case let .wrongBase(path, expected, found):
            """
            \(path) is not the bundle the patch starts from (content \(found.prefix(12))…, the patch needs \(expected.prefix(12))…): it \
            was changed locally or is another version
            """
        case let .resultMismatch(expected, found):
            "the patched bundle's content (\(found.prefix(12))…) is not the published version's (\(expected.prefix(12))…)"
        case let .unsafe(path, reason): "\(path): refused, not a plain patch: \(reason)"
        case let .tooLarge(limit): "the patched bundle would be larger than \(limit) bytes; nothing was kept"
        }
    }
}
