import Foundation
import RegionManager

/// What the CLI prints of text a server (or a bundle) chose: never a control sequence.
enum TerminalText {
    /// `text` without what a terminal would act on rather than show: C0 controls (ESC, BEL,
    /// carriage return, backspace...; a tab becomes a space, a newline is kept only when
    /// `keepNewlines`), DEL, C1 controls (U+0080–U+009F, CSI among them), and the bidirectional
    /// overrides and isolates that reorder what is shown (U+202A–U+202E, U+2066–U+2069, U+200E,
    /// U+200F, U+061C).
    static func clean(_ text: String, keepNewlines: Bool = false) -> String {
        var out = String.UnicodeScalarView()
        for c in text.unicodeScalars {
            switch c.value {
            case 0x0A where keepNewlines: out.append(c)
            case 0x09: out.append(" ")
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: continue
            default: out.append(c)
            }
        }
        return String(out)
    }

    /// Prints a line of the regions output, cleaned.
    static func print(_ line: String) {
        Swift.print(clean(line, keepNewlines: true))
    }

    /// The error as the CLI reports it: a device-side error's message cleaned (it may quote the
    /// server) and, for plain http, naming the flag that allows it; any other error as it is.
    static func reported(_ error: any Error) -> any Error {
        guard let e = error as? RegionManagerError else { return error }
        switch e {
        case let .insecureHTTP(server):
            return Message(
                text: clean(
                    "Refusing to talk to \(server) over plain http: your password and session token would cross "
                        + "the network unencrypted, readable and changeable on the way. Use an https:// server, or give --insecure-http "
                        + "if you trust the network (a server on this machine, such as http://127.0.0.1, needs no flag)."))
        case let .wrongCredentials(server):
            return Message(
                text: clean(
                    "Wrong email or password: \(server) has no account with that email and password. "
                        + "Check them and run the command again (or make an account with `trailmap account register`)."))
        default:
            return Message(text: clean(RegionsWording.message(e), keepNewlines: true))
        }
    }

    /// An error whose message is already worded for the terminal.
    struct Message: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }
}
