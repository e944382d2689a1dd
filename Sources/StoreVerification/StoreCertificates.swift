import Foundation
import SwiftASN1
import X509

/// Loads trusted root certificates for `SignedDataVerifier`.
public enum StoreCertificates {
    /// The certificates in the file at `path` as DER: a DER certificate (Apple publishes
    /// `AppleRootCA-G3.cer` so) or one or more PEM `CERTIFICATE` blocks.
    public static func load(path: String) throws(StoreVerificationError) -> [Data] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidConfiguration("cannot read the certificate file \(path)")
        }
        return try parse(data, source: path)
    }

    /// The certificates in `data` (DER or PEM) as DER; `source` names it in errors.
    public static func parse(_ data: Data, source: String = "certificate data") throws(StoreVerificationError) -> [Data] {
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") {
            guard let documents = try? PEMDocument.parseMultiple(pemString: text) else {
                throw .invalidConfiguration("\(source) is not valid PEM")
            }
            let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }
            guard !certificates.isEmpty else { throw .invalidConfiguration("\(source) holds no PEM CERTIFICATE block") }
            var result: [Data] = []
            for document in certificates {
                guard (try? Certificate(derEncoded: document.derBytes)) != nil else {
                    throw .invalidConfiguration("a certificate in \(source) cannot be parsed")
                }
                result.append(Data(document.derBytes))
            }
            return result
        }
        guard (try? Certificate(derEncoded: Array(data))) != nil else {
            throw .invalidConfiguration("\(source) is neither a DER nor a PEM certificate")
        }
        return [data]
    }
}
