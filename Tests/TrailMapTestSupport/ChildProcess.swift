import Foundation
import Synchronization

/// A child process started with `posix_spawn`, in the shape of Foundation's `Process` (the
/// properties and calls the tests use), for every tool and server the tests start.
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` to find the descriptors to close
/// and copies 256 bytes from each entry's name. Once the process holds enough descriptors to
/// fill glibc's 32 KB directory buffer (about 1,360, as a test with thousands of idle sockets
/// does), the copy of the last entry reads past the buffer and can crash the whole test run
/// (swift-corelibs-foundation issue 5472). Here the child closes every descriptor from 3 up
/// itself (`posix_spawn_file_actions_addclosefrom_np`): nothing is listed, and no pipe of another
/// test is kept open by this child.
public final class ChildProcess: @unchecked Sendable {
    /// What a standard stream of the child is joined to: a `Pipe`, a `FileHandle`, or nil for this
    /// process's own.
    public var standardInput: AnyObject?
    public var standardOutput: AnyObject?
    public var standardError: AnyObject?
    public var executableURL: URL?
    public var arguments: [String]?
    /// The child's whole environment; nil gives it this process's.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    /// Descriptors of this process the child gets as its 3, 4, … in this order, for a protocol on
    /// inherited descriptors (a browser's `--remote-debugging-pipe` reads 3 and writes 4). Each
    /// must lie above the last of those numbers: a `dup2` onto itself would leave it
    /// close-on-exec. Every other descriptor from 3 up is closed in the child.
    public var passedDescriptors: [Int32] = []

    /// The child's process id, once started; 0 before.
    public private(set) var processIdentifier: Int32 = 0
    /// The wait status once the child was reaped.
    private let reaped = Mutex<Int32?>(nil)

    public init() {}

    /// The failure to start the child, with `posix_spawn`'s error.
    public struct SpawnError: Error, CustomStringConvertible {
        public let program: String
        public let code: Int32
        public var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
    }

    /// Starts the child. The parent's ends of its pipes given to the child are closed here, as
    /// `Process` does, so that a reader sees the end of the child's output.
    public func run() throws {
        guard let program = executableURL?.path else { throw SpawnError(program: "(no executable)", code: ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams: [(AnyObject?, Int32)] = [(standardInput, 0), (standardOutput, 1), (standardError, 2)]
        for (stream, target) in streams {
            switch Self.childEnd(of: stream, target: target) {
            case let fd? where fd >= 0: posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .some: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0) // FileHandle.nullDevice
            case nil: break
            }
        }
        for (i, fd) in passedDescriptors.enumerated() {
            guard fd >= 3 + Int32(passedDescriptors.count) else { throw SpawnError(program: program, code: EBADF) }
            posix_spawn_file_actions_adddup2(&actions, fd, 3 + Int32(i))
        }
        guard Spawn.closeFrom(&actions, 3 + Int32(passedDescriptors.count)) == 0 else {
            throw SpawnError(program: program, code: ENOSYS)
        }
        if let cwd = currentDirectoryURL?.path, Spawn.changeDirectory(&actions, cwd) != 0 {
            throw SpawnError(program: program, code: ENOSYS)
        }
        // No signal blocked or ignored in the child, whatever this thread's mask (as `Process` does).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + (arguments ?? [])).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let code =
            envp.map { posix_spawn(&pid, program, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        var closed: [ObjectIdentifier] = []
        for (stream, target) in streams {
            guard let pipe = stream as? Pipe, !closed.contains(ObjectIdentifier(pipe)) else { continue }
            closed.append(ObjectIdentifier(pipe))
            try (target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
        }
        guard code == 0 else { throw SpawnError(program: program, code: code) }
        processIdentifier = pid
    }

    /// The descriptor the child's `target` is made from.
    private static func childEnd(of stream: AnyObject?, target: Int32) -> Int32? {
        switch stream {
        case let pipe as Pipe: (target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting).fileDescriptor
        case let handle as FileHandle: handle.fileDescriptor
        default: nil
        }
    }

    /// Whether the child was started and has not ended yet (it is reaped when it has).
    public var isRunning: Bool {
        guard processIdentifier > 0 else { return false }
        if reaped.withLock({ $0 }) != nil { return false }
        var status: Int32 = 0
        let got = waitpid(processIdentifier, &status, WNOHANG)
        if got == processIdentifier { record(status) }
        return got == 0
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        guard processIdentifier > 0 else { return }
        var waitsForOther = 0
        while reaped.withLock({ $0 }) == nil {
            var status: Int32 = 0
            let got = waitpid(processIdentifier, &status, 0)
            if got == processIdentifier {
                record(status)
            } else if got < 0 && errno != EINTR {
                // Reaped by a call on another thread, which records it next; after a second
                // (reaped elsewhere, its status lost) it counts as an exit with 255.
                waitsForOther += 1
                if waitsForOther > 1000 { record(255 << 8) } else { usleep(1000) }
            }
        }
    }

    private func record(_ status: Int32) { reaped.withLock { if $0 == nil { $0 = status } } }

    /// The exit code of a child that exited, or the number of the signal that ended it (as
    /// `Process` gives it); call after `waitUntilExit`.
    public var terminationStatus: Int32 {
        let status = reaped.withLock { $0 } ?? 0
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Sends SIGTERM to a child that has not been reaped.
    public func terminate() { signal(SIGTERM) }

    /// Sends SIGINT to a child that has not been reaped.
    public func interrupt() { signal(SIGINT) }

    private func signal(_ number: Int32) {
        guard processIdentifier > 0, reaped.withLock({ $0 }) == nil else { return }
        kill(processIdentifier, number)
    }
}

/// glibc's file actions that Swift's Glibc module does not import (they are GNU extensions),
/// looked up once.
private enum Spawn {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom = unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: CloseFrom.self)
    static let changeDirectory: ChangeDirectory = unsafeBitCast(
        symbol("posix_spawn_file_actions_addchdir_np"), to: ChangeDirectory.self)

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("glibc lacks \(name) (2.34 or later has it)")
        }
        return address
    }
}
