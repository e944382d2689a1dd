import Foundation

/// base64url without padding (RFC 7515 §2), as JWS uses it.
enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; nil for any other character or an impossible length.
    static func decode(_ text: Substring) -> Data? {
        guard text.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.count + 3)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
