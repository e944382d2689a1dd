import Foundation

extension Data {
    /// `count` bytes from the system's secure random generator.
    package static func catalogRandom(count: Int) -> Data {
        var g = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &g) })
    }
}
