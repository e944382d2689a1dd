extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64`'s range.
    var nanoseconds: Int64 {
        let c = components
        let (whole, overflow) = c.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return c.seconds < 0 ? .min : .max }
        let (sum, overflowSum) = whole.addingReportingOverflow(c.attoseconds / 1_000_000_000)
        return overflowSum ? (whole < 0 ? .min : .max) : sum
    }
}
