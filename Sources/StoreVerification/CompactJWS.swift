import Essentials
import Foundation

/// The header of an App Store JWS.
struct JWSHeader: Codable, Sendable {
    var alg: String?
    var x5c: [String]?
}

/// A compact JWS split into its parts, not yet verified.
struct CompactJWS: Sendable {
    let header: JWSHeader
    let payload: Data
    let signature: Data
    /// `BASE64URL(header) "." BASE64URL(payload)`, the bytes the signature covers.
    let signingInput: Data

    /// Splits and decodes `text`; throws `malformedJWS` unless it has three base64url parts with a JSON header.
    init(_ text: String) throws(StoreVerificationError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformedJWS("expected 3 dot-separated parts, found \(parts.count)")
        }
        guard let headerData = Base64URL.decode(parts[0]),
            let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw .malformedJWS("a part is not valid base64url") }
        guard let header = try? JSONDecoder().decode(JWSHeader.self, from: headerData) else {
            throw .malformedJWS("the header is not a JSON object with string 'alg' and 'x5c'")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Data(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    /// Decodes the payload as `T`, mapping failures to `malformedPayload`.
    func decodePayload<T: Decodable>(_ type: T.Type) throws(StoreVerificationError) -> T {
        do {
            return try JSONDecoder().decode(type, from: payload)
        } catch let error as DecodingError {
            throw .malformedPayload(Self.describe(error))
        } catch {
            throw .malformedPayload("\(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "payload" : "'\(keys)'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "missing field '\(parent.isEmpty ? "" : parent + ".")\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type for \(path(context))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "invalid value for \(path(context))"
        @unknown default:
            return "undecodable"
        }
    }
}
