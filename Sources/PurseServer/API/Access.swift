import PurseCore

/// Which credentials a route accepts. Every route declares one, so none can forget to check.
public struct Access: Sendable, Equatable {
    /// Nil for public routes (health, the OpenAPI document, the 3DS page).
    let allowed: Set<Credential.Kind>?

    /// No credential: `/healthz`, `/readyz`, `/openapi.json`, the 3DS page.
    public static let `public` = Access(allowed: nil)
    /// The secret key only.
    public static let secretKey = Access(allowed: [.secret])
    /// The secret key, or a publishable key (an app before it knows the customer).
    public static let publishableKey = Access(allowed: [.secret, .publishable])
    /// The secret key, or a publishable key with the object's client secret (which the service
    /// checks, since only it can tell which object the secret belongs to).
    public static let publishableWithClientSecret = Access(allowed: [.secret, .publishable])
    /// The secret key, or an ephemeral or customer-session key, which the services confine to
    /// its own customer.
    public static let customerScoped = Access(allowed: [.secret, .ephemeralKey, .customerSession])
    /// Only an ephemeral or session key (the `/v1/elements/...` calls the mobile SDK makes).
    public static let customerKeyOnly = Access(allowed: [.ephemeralKey, .customerSession])

    var isPublic: Bool { allowed == nil }

    /// Refuses a credential of the wrong kind: 403, `secret_key_required`.
    func check(_ credential: Credential) throws {
        guard let allowed, !allowed.contains(credential.kind) else { return }
        let message =
            switch credential.kind {
            case .publishable:
                "This API call cannot be made with a publishable API key. Please use a secret API key."
            case .ephemeralKey, .customerSession, .billingPortal:
                "This API call cannot be made with an ephemeral key. Please use a secret API key."
            case .secret:
                "This API call must be made with a customer's ephemeral key, not a secret API key."
            }
        throw PurseError(.permission, code: "secret_key_required", message: message)
    }
}
