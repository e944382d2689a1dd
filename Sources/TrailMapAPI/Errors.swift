/// The body of every error answer (4xx and 5xx): `{"error": {"code": "...", "message": "..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// What went wrong.
    public struct Detail: Codable, Sendable, Equatable {
        /// Machine-readable, e.g. `unknown_product`, `not_entitled`, `bad_request`.
        public var code: String
        /// For people; never parsed.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String) { error = Detail(code: code, message: message) }

    /// `Error` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object(["error": Schema.object(["code": Schema.string(), "message": Schema.string()])])
    }
}
