/// What `POST /v1/customers/{id}/revoke_credentials` did: every ephemeral key, customer session
/// and customer portal session of the customer stopped working at once.
public struct CredentialRevocation: Codable, Sendable, Hashable {
    public var object: String = "credential_revocation"
    public var customer: String
    public var ephemeralKeysRevoked: Int
    public var customerSessionsRevoked: Int
    public var billingPortalSessionsRevoked: Int

    public init(customer: String, ephemeralKeysRevoked: Int, customerSessionsRevoked: Int, billingPortalSessionsRevoked: Int) {
        self.customer = customer
        self.ephemeralKeysRevoked = ephemeralKeysRevoked
        self.customerSessionsRevoked = customerSessionsRevoked
        self.billingPortalSessionsRevoked = billingPortalSessionsRevoked
    }

    enum CodingKeys: String, CodingKey {
        case object, customer
        case ephemeralKeysRevoked = "ephemeral_keys_revoked"
        case customerSessionsRevoked = "customer_sessions_revoked"
        case billingPortalSessionsRevoked = "billing_portal_sessions_revoked"
    }
}
