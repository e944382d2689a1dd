import ArgumentParser
import Foundation
import Logging

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    @Flag(name: .shortAndLong, help: "No progress output.")
    var quiet = false

    /// Sets up swift-log once for the process (stderr) and returns a logger.
    func logger(_ label: String) -> Logger {
        LogSetup.bootstrap(level: logLevel)
        return Logger(label: label)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

enum LogSetup {
    nonisolated(unsafe) private static var done = false

    static func bootstrap(level: Logger.Level) {
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
