/// What events record of the request that caused them.
public struct RequestInfo: Sendable {
    /// `req_...`.
    public let id: String
    public let idempotencyKey: String?
    /// The `Stripe-Version` the request sent, or Purse's own.
    public let apiVersion: String

    public init(id: String, idempotencyKey: String?, apiVersion: String) {
        self.id = id
        self.idempotencyKey = idempotencyKey
        self.apiVersion = apiVersion
    }

    /// The API version Purse speaks when a request names none (what stripe-python 16 sends).
    public static let defaultAPIVersion = "2026-10-28.endive"
}
