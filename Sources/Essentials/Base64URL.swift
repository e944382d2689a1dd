import Foundation

/// base64url without padding (RFC 4648 §5, RFC 7515 §2): JWS parts, session and tile tokens.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; nil for any other character (padding included) or an
    /// impossible length.
    public static func decode<S: StringProtocol>(_ text: S) -> Data? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
