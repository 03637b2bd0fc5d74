import Crypto

/// Secrets Purse shows again without storing them (spec §2): HMAC of the object's id under a key
/// derived from the master key for each purpose, so only the holder of the master key can
/// produce or check them.
public struct DerivedSecrets: Sendable {
    private let setupIntentKey: SymmetricKey
    private let authenticationPageKey: SymmetricKey
    private let microdepositsPageKey: SymmetricKey
    private let customerSessionKey: SymmetricKey
    private let webhookSigningKey: SymmetricKey
    private let financialConnectionsKey: SymmetricKey
    private let testBankPageKey: SymmetricKey
    private let portalSessionKey: SymmetricKey
    private let portalFormKey: SymmetricKey
    private let portalReturnKey: SymmetricKey

    /// Derives each purpose's key once: an elements session hands out a session's key on every call.
    public init(masterKey: MasterKey) {
        setupIntentKey = masterKey.derivedKey(for: "setup-intent-client-secret")
        authenticationPageKey = masterKey.derivedKey(for: "authentication-page")
        microdepositsPageKey = masterKey.derivedKey(for: "microdeposits-page")
        customerSessionKey = masterKey.derivedKey(for: "customer-session-api-key")
        webhookSigningKey = masterKey.derivedKey(for: "webhook-signing-secret")
        financialConnectionsKey = masterKey.derivedKey(for: "financial-connections-client-secret")
        testBankPageKey = masterKey.derivedKey(for: "financial-connections-test-bank-page")
        portalSessionKey = masterKey.derivedKey(for: "billing-portal-session-url")
        portalFormKey = masterKey.derivedKey(for: "billing-portal-form")
        portalReturnKey = masterKey.derivedKey(for: "billing-portal-authentication-return")
    }

    /// `seti_<id>_secret_<random>`: no `_` inside either part, as the mobile SDKs check.
    public func setupIntentClientSecret(_ id: String) -> String {
        "\(id)_secret_\(token(setupIntentKey, id))"
    }

    /// Whether `candidate` is the client secret of setup intent `id`, compared in constant time.
    public func isSetupIntentClientSecret(_ candidate: String, of id: String) -> Bool {
        SecretHash.constantTimeEquals(Array(candidate.utf8), Array(setupIntentClientSecret(id).utf8))
    }

    /// The token in the URL of a setup intent's authentication page; a new one per attempt.
    public func authenticationToken(setupIntent id: String, attempt: Int) -> String {
        token(authenticationPageKey, "\(id)|\(attempt)")
    }

    public func isAuthenticationToken(_ candidate: String, setupIntent id: String, attempt: Int) -> Bool {
        SecretHash.constantTimeEquals(Array(candidate.utf8), Array(authenticationToken(setupIntent: id, attempt: attempt).utf8))
    }

    /// The ephemeral key a customer session hands out: the same on every call, never stored.
    /// The token in the URL of a setup intent's microdeposits page; a new one per attempt, and
    /// never the authentication page's.
    public func microdepositsPageToken(setupIntent id: String, attempt: Int) -> String {
        token(microdepositsPageKey, "\(id)|\(attempt)")
    }

    public func isMicrodepositsPageToken(_ candidate: String, setupIntent id: String, attempt: Int) -> Bool {
        SecretHash.constantTimeEquals(Array(candidate.utf8), Array(microdepositsPageToken(setupIntent: id, attempt: attempt).utf8))
    }

    public func customerSessionAPIKey(_ sessionID: String) -> String {
        "ek_test_" + token(customerSessionKey, sessionID, length: 48)
    }

    /// A webhook endpoint's signing secret.
    public func webhookSigningSecret(_ endpointID: String) -> String {
        "whsec_" + token(webhookSigningKey, endpointID, length: 32)
    }

    /// `fcsess_<id>_secret_<random>`: the SDKs send it alone, so it names its session.
    public func financialConnectionsClientSecret(_ id: String) -> String {
        "\(id)_secret_\(token(financialConnectionsKey, id))"
    }

    /// The session a Financial Connections client secret belongs to, if it is one.
    public func financialConnectionsSession(ofClientSecret candidate: String) -> String? {
        guard let range = candidate.range(of: "_secret_") else { return nil }
        let id = String(candidate[..<range.lowerBound])
        let expected = financialConnectionsClientSecret(id)
        return SecretHash.constantTimeEquals(Array(candidate.utf8), Array(expected.utf8)) ? id : nil
    }

    /// The token in the URL of a Financial Connections session's test-bank page.
    public func testBankPageToken(_ sessionID: String) -> String {
        token(testBankPageKey, sessionID, length: 32)
    }

    public func isTestBankPageToken(_ candidate: String, session id: String) -> Bool {
        SecretHash.constantTimeEquals(Array(candidate.utf8), Array(testBankPageToken(id).utf8))
    }

    /// The token in a customer portal session's URL (`test_...`, as Stripe's test-mode URLs have it).
    public func portalSessionToken(_ sessionID: String) -> String {
        "test_" + token(portalSessionKey, sessionID, length: 48)
    }

    public func isPortalSessionToken(_ candidate: String, session id: String) -> Bool {
        SecretHash.constantTimeEquals(Array(candidate.utf8), Array(portalSessionToken(id).utf8))
    }

    /// The token every form of a portal session's pages carries: a cross-site form cannot know
    /// it, and it tells nothing of the URL's token.
    public func portalFormToken(_ sessionID: String) -> String {
        token(portalFormKey, sessionID, length: 32)
    }

    public func isPortalFormToken(_ candidate: String, session id: String) -> Bool {
        SecretHash.constantTimeEquals(Array(candidate.utf8), Array(portalFormToken(id).utf8))
    }

    /// The cookie that lets the browser which added a method come back to its session after 3D
    /// Secure: the setup intent's `return_url` is stored, so it cannot carry the session's token.
    /// Bound to whether the customer asked for the method to become the default, so the way
    /// back cannot ask for more than they did.
    public func portalReturnToken(session id: String, setupIntent: String, makeDefault: Bool) -> String {
        token(portalReturnKey, "\(id)|\(setupIntent)|\(makeDefault)", length: 32)
    }

    public func isPortalReturnToken(_ candidate: String, session id: String, setupIntent: String, makeDefault: Bool) -> Bool {
        SecretHash.constantTimeEquals(
            Array(candidate.utf8), Array(portalReturnToken(session: id, setupIntent: setupIntent, makeDefault: makeDefault).utf8)
        )
    }

    /// `length` base62 characters of HMAC output: one 32-byte MAC carries 42 full characters, so
    /// longer tokens chain further MACs over a counter.
    private func token(_ key: SymmetricKey, _ material: String, length: Int = 24) -> String {
        var bytes: [UInt8] = []
        var block = 0
        while bytes.count * 8 < length * 6 {  // 62 < 2^6, so 6 bits per character are plenty
            let mac = HMAC<SHA256>.authenticationCode(for: Array("\(material)|\(block)".utf8), using: key)
            bytes += Array(mac)
            block += 1
        }
        return Base62.encode(bytes, length: length)
    }
}
