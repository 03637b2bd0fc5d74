import Foundation

/// The key the adapter acts for the customer with: an ephemeral key from the app's provider, or
/// the key a customer session's elements session handed out.
struct CustomerCredential: Sendable, Equatable {
    let customerID: String
    /// `ek_test_...`: the bearer for customer-scoped calls.
    let apiKey: String
    /// When to stop using it and ask for a new one.
    let renewAfter: Date
    /// The customer session's client secret, in customer-session mode.
    let sessionClientSecret: String?

    /// How long a provider's ephemeral key is used: stripe-ios's `CachedCustomerMaxAge`. The
    /// provider returns only the secret, not its expiry; keys live 60 minutes on Purse.
    static let ephemeralKeyMaxAge: TimeInterval = 30 * 60

    /// An ephemeral key from the app's provider, used for 30 minutes.
    static func ephemeralKey(_ key: CustomerEphemeralKey, now: Date) -> CustomerCredential {
        CustomerCredential(
            customerID: key.customerId, apiKey: key.ephemeralKeySecret, renewAfter: now + ephemeralKeyMaxAge,
            sessionClientSecret: nil
        )
    }

    /// A customer session's key, used until shortly before it expires (a minute, or half the
    /// time left when less remains).
    static func sessionKey(
        customerID: String, apiKey: String, expiresAt: Date, clientSecret: String, now: Date
    ) -> CustomerCredential {
        let margin = min(60, max(0, expiresAt.timeIntervalSince(now)) / 2)
        return CustomerCredential(
            customerID: customerID, apiKey: apiKey, renewAfter: expiresAt - margin, sessionClientSecret: clientSecret
        )
    }
}
