/// Why a sandbox store could not be created, loaded or used.
public enum SandboxStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// `initialize` found a store in the folder and was not asked to replace it.
    case alreadyExists(String)
    /// The folder holds no sandbox store, or a file of it is missing.
    case missingFile(String)
    /// A file of the store cannot be read or parsed.
    case unreadable(path: String, reason: String)
    /// Writing the store failed.
    case writeFailed(path: String, reason: String)
    /// Generating a certificate or signing failed.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .alreadyExists(let dir):
            return
                """
                A sandbox store already exists in \(dir); replacing it (force: true) invalidates every transaction it signed.
                """
        case .missingFile(let path):
            return "No sandbox store file at \(path)."
        case .unreadable(let path, let reason):
            return
                "Cannot read the sandbox store file \(path): \(reason)."
        case .writeFailed(let path, let reason):
            return "Cannot write \(path): \(reason). Check that the folder is writable."
        case .signingFailed(let reason):
            return "Sandbox signing failed: \(reason)."
        }
    }
}
