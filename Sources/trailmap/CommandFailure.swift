/// A command that could not do its work although it was asked correctly (a catalog, bundle or
/// folder it names is missing or unreadable): the message, and exit status 1. A usage error
/// (a malformed value, options that exclude each other) stays a `ValidationError`, exit 64.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(description: String) { self.description = description }

    init(_ description: String) { self.description = description }
}
