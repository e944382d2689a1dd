/// A read option given for a source that does not apply to it: the source is read as if it had
/// not been given, and the user is warned.
public enum IgnoredReadOption: Sendable, Hashable, CustomStringConvertible {
    /// `ReadOptions.scale` given for a source of 8-bit bands (`palette`: palette indices), which
    /// are read as they are: the range maps 16-bit, 32-bit and floating-point bands to 8 bits.
    case scaleOn8Bit(palette: Bool)

    /// The warning, naming the option by what it does.
    public var description: String {
        switch self {
        case let .scaleOn8Bit(palette):
            """
            the value range to scale is not applied: its bands are \(palette ? "palette indices" : "8-bit") (the range maps 16-bit, \
            32-bit and floating-point bands to 8 bits)
            """
        }
    }
}
