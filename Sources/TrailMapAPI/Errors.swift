/// The body of every error answer (4xx and 5xx): `{"error": {"code": "...", "message": "..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// What went wrong.
    public struct Detail: Codable, Sendable, Equatable {
        /// Machine-readable, e.g. `unknown_product`, `not_entitled`, `bad_request`.
        public var code: String
        /// For people; never parsed.
        public var message: String
        /// `area_not_covered`: the regions nearest the point, nearest first.
        public var nearby: [NearbyRegion]?
        /// `area_too_large`: the largest radius (km) whose area fits the product's cap at the zooms asked.
        public var largestRadiusKm: Double?

        public init(code: String, message: String, nearby: [NearbyRegion]? = nil, largestRadiusKm: Double? = nil) {
            self.code = code
            self.message = message
            self.nearby = nearby
            self.largestRadiusKm = largestRadiusKm
        }
    }

    public var error: Detail

    public init(code: String, message: String, nearby: [NearbyRegion]? = nil, largestRadiusKm: Double? = nil) {
        error = Detail(code: code, message: message, nearby: nearby, largestRadiusKm: largestRadiusKm)
    }

    /// `Error` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object([
            "error": Schema.object(
                [
                    "code": Schema.string(), "message": Schema.string(),
                    "nearby": Schema.array(Schema.ref("NearbyRegion")), "largestRadiusKm": Schema.number
                ],
                optional: ["nearby", "largestRadiusKm"])
        ])
    }
}
