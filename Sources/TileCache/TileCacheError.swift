/// Errors of the cache and its bundle manager.
public enum TileCacheError: Error, CustomStringConvertible, Sendable {
    /// Opening a bundle would put its reserved memory over the cache budget.
    case budgetTooSmall(budget: Int, bundleCost: Int)

    public var description: String {
        switch self {
        case let .budgetTooSmall(budget, cost):
            """
            the cache budget (\(budget) bytes) cannot hold another open bundle (\(cost) bytes each): raise the budget or lower the \
            number of open bundles
            """
        }
    }
}
