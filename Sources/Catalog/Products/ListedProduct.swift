import Foundation
import TrailMapAPI

/// A product's state for one caller, as the store shows it: the API contract's own type.
public typealias ProductStatus = TrailMapAPI.ProductStatus

/// A product with the caller's status.
public struct ListedProduct: Sendable, Equatable {
    public var product: Product
    public var status: ProductStatus
    /// The version installed on the caller's device, if any.
    public var installedVersion: Int?

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(product: Product, status: ProductStatus, installedVersion: Int?) {
        self.product = product
        self.status = status
        self.installedVersion = installedVersion
    }
}
