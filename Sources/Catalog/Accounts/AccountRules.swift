import Crypto
import Essentials
import Foundation

/// The account rules every catalog backend follows: what an email address and a password must
/// be, how a session token is kept (only its hash) and tagged.
public enum AccountRules {
    public static let minimumPasswordLength = 10
    /// Longest password, in Unicode scalars (at most 1 KiB of UTF-8).
    public static let maximumPasswordLength = 256

    /// A short tag of a login session (the start of its token's hash), carried in the tile tokens
    /// it asks for.
    public static func sessionTag(token: String) -> String { String(tokenHash(token).prefix(16)) }

    /// The stored form of a session token: its SHA-256, hex.
    package static func tokenHash(_ token: String) -> String {
        Hex.encode(SHA256.hash(data: Data(token.utf8)))
    }

    /// An address of the form `LOCAL@DOMAIN`: LOCAL of ASCII letters, digits and `._%+'-`; DOMAIN
    /// two or more dot-separated labels of letters, digits and `-`; at most 254 bytes. The OpenAPI
    /// document declares the same rule as a pattern (`emailPattern`).
    package static func isEmail(_ s: String) -> Bool {
        guard s.utf8.count <= 254, let at = s.utf8.firstIndex(of: UInt8(ascii: "@")) else { return false }
        func alnum(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
        let local = s.utf8[..<at], domain = s.utf8[s.utf8.index(after: at)...]
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return !local.isEmpty && local.allSatisfy { alnum($0) || "._%+'-".utf8.contains($0) }
            && labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy { alnum($0) || $0 == UInt8(ascii: "-") } }
    }

    /// `isEmail`, for tests that hold it against `emailPattern`.
    public static func isEmailForTesting(_ s: String) -> Bool { isEmail(s) }

    /// `isEmail` as a regular expression, for the OpenAPI document.
    public static let emailPattern = "^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$"
}
