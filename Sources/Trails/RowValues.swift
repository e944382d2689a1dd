import Foundation
import GRDB

/// Lenient reads of a bundle's row (a bundle is input: a value of the wrong type reads as nil,
/// never traps).
extension Row {
    func text(_ i: Int) -> String? { String.fromDatabaseValue(self[i] as DatabaseValue) }
    func real(_ i: Int) -> Double { Double.fromDatabaseValue(self[i] as DatabaseValue) ?? 0 }
    func integer(_ i: Int) -> Int { Int.fromDatabaseValue(self[i] as DatabaseValue) ?? 0 }
    func int64(_ i: Int) -> Int64 { Int64.fromDatabaseValue(self[i] as DatabaseValue) ?? 0 }
    func bytes(_ i: Int) -> [UInt8] { Data.fromDatabaseValue(self[i] as DatabaseValue).map { [UInt8]($0) } ?? [] }
}
