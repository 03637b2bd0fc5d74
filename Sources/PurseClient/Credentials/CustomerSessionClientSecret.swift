/// What an app's backend returns for a customer-session sheet: the customer and the client
/// secret (`cuss_secret_...`) of a customer session it just created with Purse's secret key
/// (`POST /v1/customer_sessions`). The labels are stripe-ios's.
public struct CustomerSessionClientSecret: Sendable, Hashable {
    /// The customer's id (`cus_...`).
    public let customerId: String
    /// The session's client secret (`cuss_secret_...`).
    public let clientSecret: String

    /// Creates the pair from your backend's answer.
    public init(customerId: String, clientSecret: String) {
        self.customerId = customerId
        self.clientSecret = clientSecret
    }
}
