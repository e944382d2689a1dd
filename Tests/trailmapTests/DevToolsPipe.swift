import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TrailMapTestSupport

/// Headless Chromium driven over the Chrome DevTools Protocol on a pipe (`--remote-debugging-pipe`:
/// the browser reads commands on fd 3 and writes answers on fd 4, each a JSON text ended by a NUL),
/// so that a test can click and type in a page as a user would.
final class DevToolsPipe {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    private var pid: pid_t = 0
    private let toBrowser: Int32
    private let fromBrowser: Int32
    private var nextId = 0
    private var buffer = Data()
    /// The page target's session, once `open` attached to it.
    private var session: String?
    /// The page's errors seen so far once `watchConsole()` was called: loads the browser logged
    /// as failed, `console.error` calls, uncaught exceptions. Events are read with the answers of
    /// commands: `evaluate("0")` first brings the list up to date.
    private(set) var consoleErrors: [String] = []

    init(chromium: String, profile: String) throws {
        var commands: [Int32] = [0, 0], answers: [Int32] = [0, 0]
        guard pipe(&commands) == 0, pipe(&answers) == 0 else { throw Failure("pipe: \(errno)") }
        // Every end close-on-exec at once (no other process spawned meanwhile keeps one), and the
        // browser's above fd 4, so that the dup2 onto 3 and 4 always makes new descriptors (without CLOEXEC).
        let ends = (commands + answers).map { fd in
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 10)
            close(fd)
            return copy
        }
        let read3 = ends[0], write4 = ends[3]
        defer {
            close(read3)
            close(write4)
        }
        toBrowser = ends[1]
        fromBrowser = ends[2]
        let browser = ChildProcess()
        browser.executableURL = URL(fileURLWithPath: chromium)
        browser.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile)", "--window-size=1400,900", "--remote-debugging-pipe", "about:blank"
        ]
        browser.standardOutput = FileHandle.nullDevice
        browser.standardError = FileHandle.nullDevice
        browser.passedDescriptors = [read3, write4]
        do {
            try browser.run()
        } catch {
            throw Failure("\(error)") // deinit closes the pipes (no browser to end)
        }
        pid = browser.processIdentifier
    }

    /// Closes the browser (it ends its own helper processes), killing it if it has not gone within 5 s.
    deinit {
        if pid > 0 { _ = try? send("Browser.close", browser: true) }
        close(toBrowser)
        close(fromBrowser)
        // pid 0 (no browser started) would name this whole process group to waitpid and kill.
        guard pid > 0 else { return }
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(pid, &status, WNOHANG) == 0 { usleep(100_000) }
        if kill(pid, 0) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
    }

    /// Sends a command (to the page's session unless `browser`) and returns its `result`.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], browser: Bool = false) throws -> [String: Any] {
        nextId += 1
        var message: [String: Any] = ["id": nextId, "method": method, "params": params]
        if !browser, let session { message["sessionId"] = session }
        var data = try JSONSerialization.data(withJSONObject: message)
        data.append(0)
        try data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = write(toBrowser, raw.baseAddress! + sent, raw.count - sent)
                guard n > 0 else { throw Failure("write to chromium: \(errno)") }
                sent += n
            }
        }
        while true {
            let answer = try receive()
            record(answer)
            guard answer["id"] as? Int == nextId else { continue } // events and other answers
            if let error = answer["error"] { throw Failure("\(method): \(error)") }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    /// Starts collecting the page's errors into `consoleErrors` (those already logged included).
    func watchConsole() throws {
        try send("Log.enable")
        try send("Runtime.enable")
    }

    /// Keeps an event that is an error of the page.
    private func record(_ message: [String: Any]) {
        guard let method = message["method"] as? String, let params = message["params"] as? [String: Any] else { return }
        switch method {
        case "Log.entryAdded":
            guard let entry = params["entry"] as? [String: Any], entry["level"] as? String == "error" else { return }
            consoleErrors.append("\(entry["source"] ?? ""): \(entry["text"] ?? "") \(entry["url"] ?? "")")
        case "Runtime.consoleAPICalled" where params["type"] as? String == "error":
            let args = (params["args"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? $0["description"] ?? "")" }
            consoleErrors.append("console.error: \(args.joined(separator: " "))")
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"] as? [String: Any] ?? [:]
            let exception = (details["exception"] as? [String: Any])?["description"] ?? details["text"] ?? ""
            consoleErrors.append("exception: \(exception)")
        default: break
        }
    }

    /// The next message from the browser (30 s at most).
    private func receive() throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let text = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[(end + 1)...])
                return (try? JSONSerialization.jsonObject(with: text) as? [String: Any]) ?? [:]
            }
            var poller = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 30_000) == 1 else { throw Failure("chromium did not answer within 30 s") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fromBrowser, &chunk, chunk.count)
            guard n > 0 else { throw Failure("chromium closed the pipe") }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Opens `url` in a new page and attaches to it.
    func open(_ url: String) throws {
        let target = try send("Target.createTarget", ["url": url], browser: true)
        guard let id = target["targetId"] as? String else { throw Failure("no target: \(target)") }
        let attached = try send("Target.attachToTarget", ["targetId": id, "flatten": true], browser: true)
        session = attached["sessionId"] as? String
        guard session != nil else { throw Failure("not attached: \(attached)") }
    }

    /// Runs JavaScript in the page (awaiting a promise) and returns its value as JSON would.
    func evaluate(_ expression: String) throws -> Any? {
        let r = try send("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true])
        if let exception = r["exceptionDetails"] { throw Failure("\(expression): \(exception)") }
        return (r["result"] as? [String: Any])?["value"]
    }

    /// Evaluates `condition` until it is true, checking every 100 ms for at most `seconds`; a
    /// condition that is a promise (a `fetch(...).then(...)`) counts by what it resolves to.
    func wait(_ condition: String, seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var lastError: (any Error)?
        while Date() < deadline {
            // A page still loading can throw (a relative fetch from about:blank): asked again.
            do { if try evaluate("Promise.resolve(\(condition)).then(v => !!v)") as? Bool == true { return } } catch { lastError = error }
            usleep(100_000)
        }
        let message = (try? evaluate("document.getElementById('msg') ? document.getElementById('msg').textContent : ''")) as? String ?? ""
        throw Failure("waited \(seconds) s for \(condition); the page says: \(message)" + (lastError.map { "; last error: \($0)" } ?? ""))
    }

    /// A left click at a point of the page, as the mouse makes it.
    func click(x: Double, y: Double) throws {
        try send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y])
        try send("Input.dispatchMouseEvent", ["type": "mousePressed", "x": x, "y": y, "button": "left", "clickCount": 1])
        try send("Input.dispatchMouseEvent", ["type": "mouseReleased", "x": x, "y": y, "button": "left", "clickCount": 1])
    }
}
