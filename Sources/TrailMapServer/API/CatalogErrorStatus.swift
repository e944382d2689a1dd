import Catalog
import HTTPTypes

extension APIError {
    /// The HTTP answer to a catalog error.
    init(_ e: CatalogError) {
        let status: HTTPResponse.Status =
            switch e {
            case .invalidEmail, .weakPassword, .invalidArgument, .productFile, .bundle: .badRequest
            // Well-formed, but the product or transaction does not fit the call.
            case .areaProduct, .wrongAreaProduct: .unprocessableContent
            case .emailTaken, .transactionClaimed, .quoteUsed, .transactionUsed: .conflict
            case .quoteExpired: .gone
            case .invalidCredentials, .unauthorized: .unauthorized
            case .tooManyAttempts: .tooManyRequests
            case .unknownProduct, .unknownDevice, .unknownVersion, .unknownQuote: .notFound
            case .notEntitled, .revoked, .accountTokenMismatch: .forbidden
            case .database, .busy: .serviceUnavailable
            }
        self.init(status, code: e.code, message: e.description)
        if case let .tooManyAttempts(s) = e { headers[.retryAfter] = String(s) }
        if case let .busy(s) = e { headers[.retryAfter] = String(s) }
    }

    /// The answer a route's thrown error already carries: an `APIError` as it is, a catalog error
    /// through its status; nil for any other error (`APIErrorMiddleware` decides those).
    init?(thrown error: any Error) {
        switch error {
        case let e as APIError: self = e
        case let e as CatalogError: self.init(e)
        default: return nil
        }
    }
}
