/// What an app's backend returns for an ephemeral-key sheet: the customer and the secret of an
/// ephemeral key it just created for them with Purse's secret key (`POST /v1/ephemeral_keys`).
/// The labels are stripe-ios's, so existing provider code carries over.
public struct CustomerEphemeralKey: Sendable, Hashable {
    /// The customer's id (`cus_...`).
    public let customerId: String
    /// The key's secret (`ek_test_...`).
    public let ephemeralKeySecret: String

    /// Creates the pair from your backend's answer.
    public init(customerId: String, ephemeralKeySecret: String) {
        self.customerId = customerId
        self.ephemeralKeySecret = ephemeralKeySecret
    }
}
