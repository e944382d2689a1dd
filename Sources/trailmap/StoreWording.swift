import StoreVerification
import TileStore

/// The CLI's words for the sandbox store's errors and an export's folder: the library's own
/// description (which names no command) and the command or flag that helps.
enum StoreWording {
    /// `error` in the CLI's words when it is one of these; any other error as it is.
    static func reported(_ error: any Error) -> any Error {
        switch error {
        case let e as SandboxStoreError: TerminalText.Message(text: message(e))
        case let e as TileStoreError:
            if case .folderNotEmpty = e { TerminalText.Message(text: "\(e), or give --force to write over it") } else { e }
        default: error
        }
    }

    static func message(_ e: SandboxStoreError) -> String {
        switch e {
        case let .alreadyExists(dir):
            "A sandbox store already exists in \(dir); give --force to replace it, which invalidates every transaction it signed."
        case let .missingFile(path): "No sandbox store file at \(path); create one with `trailmap store sandbox init DIR`."
        case let .unreadable(path, reason):
            "Cannot read the sandbox store file \(path): \(reason). Recreate the store with `trailmap store sandbox init DIR --force`."
        case .writeFailed, .signingFailed: e.description
        }
    }
}
