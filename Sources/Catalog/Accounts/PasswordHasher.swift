import Crypto
import CryptoExtras
import Essentials
import Foundation

/// Hashes passwords with scrypt (memory-hard) and a random salt; verifies in constant time.
/// The stored form carries its parameters, `scrypt$N$r$p$salt$hash` (base64), so they can be raised later.
public struct PasswordHasher: Sendable {
    /// CPU/memory cost (a power of two): 2^15 with r = 8 uses 32 MiB per hash.
    public var rounds: Int
    public var blockSize: Int
    public var parallelism: Int

    public init(rounds: Int = 1 << 15, blockSize: Int = 8, parallelism: Int = 1) {
        self.rounds = rounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// The stored form of a new password.
    public func hash(_ password: String) throws -> String {
        let salt = Data.catalogRandom(count: 16)
        let key = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(salt.base64EncodedString())$\(key.base64EncodedString())"
    }

    /// Whether `password` matches a stored form (false for anything malformed).
    public func verify(_ password: String, against stored: String) -> Bool {
        let f = stored.split(separator: "$").map(String.init)
        guard f.count == 6, f[0] == "scrypt", let n = Int(f[1]), let r = Int(f[2]), let p = Int(f[3]),
            n > 1, n <= 1 << 20, n & (n - 1) == 0, (1...32).contains(r), (1...16).contains(p),
            let salt = Data(base64Encoded: f[4]), let expected = Data(base64Encoded: f[5]),
            let key = try? derive(password, salt: salt, rounds: n, blockSize: r, parallelism: p)
        else { return false }
        return ConstantTime.equal(key, expected)
    }

    /// A hash of nothing in particular, to spend the same time when the account does not exist.
    package func burn(_ password: String) {
        _ = try? derive(password, salt: Data(count: 16), rounds: rounds, blockSize: blockSize, parallelism: parallelism)
    }

    private func derive(_ password: String, salt: Data, rounds: Int, blockSize: Int, parallelism: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8), salt: salt, outputByteCount: 32,
            rounds: rounds, blockSize: blockSize, parallelism: parallelism,
            maxMemory: 256 * 1024 * 1024)
        return key.withUnsafeBytes { Data($0) }
    }
}
