/// Comparisons of secrets that take the same time wherever the inputs first differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; only a length difference returns early.
    public static func equal<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }
}
