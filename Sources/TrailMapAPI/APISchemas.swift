/// Every body of `/api/v1` by its name in the OpenAPI document's `components/schemas`, from the
/// `schema` each type declares. `Registration` carries the catalog's account rules, which the
/// server passes in.
public enum APISchemas {
    /// The name → schema map, with `Registration` built from the rules given.
    public static func components(emailPattern: String, passwordLength: ClosedRange<Int>) -> [String: JSONValue] {
        [
            "Registration": Credentials.registrationSchema(emailPattern: emailPattern, passwordLength: passwordLength),
            "Credentials": Credentials.schema,
            "AccountCreated": AccountCreated.schema,
            "Session": Session.schema,
            "Device": DeviceRequest.schema,
            "DeviceRegistration": DeviceRegistration.schema,
            "Install": InstallRequest.schema,
            "InstallResult": InstallResult.schema,
            "Catalog": CatalogListing.schema,
            "Category": Category.schema,
            "Price": Price.schema,
            "ProductStatus": ProductStatus.schema,
            "Level": ProductLevel.schema,
            "ProductSummary": ProductSummary.schema,
            "ProductDetail": ProductDetail.schema,
            "Coverage": Coverage.schema,
            "Purchase": SignedTransaction.schema,
            "PurchaseResult": PurchaseResult.schema,
            "EntitlementList": EntitlementList.schema,
            "Entitlement": Entitlement.schema,
            "TileToken": TileTokenRequest.schema,
            "TileTokenGrant": TileTokenGrant.schema,
            "DownloadLinkRequest": DownloadLinkRequest.schema,
            "DownloadLink": DownloadLink.schema,
            "ProductUpdate": ProductUpdate.schema,
            "PatchLink": PatchLink.schema,
            "Notification": SignedPayload.schema,
            "NotificationResult": NotificationResult.schema,
            "SandboxPurchase": SandboxPurchaseRequest.schema,
            "SandboxNotification": SandboxNotificationRequest.schema,
            "Error": APIErrorBody.schema,
            "ProductKind": ProductKind.schema,
            "AreaTerms": AreaTerms.schema,
            "AreaQuoteRequest": AreaQuoteRequest.schema,
            "AreaQuote": AreaQuote.schema,
            "AreaPurchase": AreaPurchaseRequest.schema,
            "AreaPurchaseResult": AreaPurchaseResult.schema,
            "NearbyRegion": NearbyRegion.schema,
            "TrailProduct": TrailProduct.schema,
            "TrailResult": TrailResult.schema,
            "TrailSearchResult": TrailSearchResult.schema,
            "TrailPlace": TrailPlace.schema,
            "TrailDetail": TrailDetail.schema,
            "TrailsSummary": TrailsSummary.schema,
        ]
    }
}
