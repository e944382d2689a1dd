import Foundation

/// The one JSON style of every `--json` output: pretty-printed, keys sorted, slashes as they are
/// (no `\/`), dates in ISO 8601. JSON escapes every control character, so nothing a server or a
/// bundle chose reaches the terminal as a control sequence.
enum JSONOutput {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Prints `value` on stdout in the house style.
    static func print(_ value: some Encodable) throws {
        Swift.print(String(decoding: try encoder().encode(value), as: UTF8.self))
    }
}
