import Foundation
import PurseClient
import TestSupport

/// A merchant in a test: an account on a live server, one customer, and the backend routes an
/// app's providers call (minting ephemeral keys, customer sessions and setup intents with the
/// secret key), as `purse-example-backend` does.
struct Shop: Sendable {
    let server: LiveServer
    let account: TestAccount
    let customer: String
    let log = ProviderLog()
    /// `components[customer_sheet][features]...` for the sessions it mints.
    var sessionFeatures = "&components[customer_sheet][features][payment_method_remove]=enabled"

    static func open(on server: LiveServer, email: String = "jane@example.com") async throws -> Shop {
        let account = try await server.makeAccount()
        let created = try await account.secret.post("/v1/customers", "email=\(email.replacingOccurrences(of: "@", with: "%40"))")
        guard let customer = created.json["id"]?.stringValue else { throw TestSetupError("No customer: \(created.json)") }
        return Shop(server: server, account: account, customer: customer)
    }

    // MARK: The merchant backend's routes

    func ephemeralKey() async throws -> CustomerEphemeralKey {
        let call = try await account.secret.post(
            "/v1/ephemeral_keys", "customer=\(customer)", headers: ["Stripe-Version": "2020-08-27"]
        )
        guard let id = call.json["id"]?.stringValue, let secret = call.json["secret"]?.stringValue else {
            throw TestSetupError("No ephemeral key: \(call.json)")
        }
        await log.mintedEphemeralKey(id)
        return CustomerEphemeralKey(customerId: customer, ephemeralKeySecret: secret)
    }

    func customerSession() async throws -> CustomerSessionClientSecret {
        let call = try await account.secret.post(
            "/v1/customer_sessions", "customer=\(customer)&components[customer_sheet][enabled]=true" + sessionFeatures
        )
        guard let id = call.json["id"]?.stringValue, let secret = call.json["client_secret"]?.stringValue else {
            throw TestSetupError("No customer session: \(call.json)")
        }
        await log.mintedCustomerSession(id)
        return CustomerSessionClientSecret(customerId: customer, clientSecret: secret)
    }

    func setupIntentClientSecret() async throws -> String {
        let call = try await account.secret.post(
            "/v1/setup_intents",
            "customer=\(customer)&payment_method_types[0]=card&payment_method_types[1]=us_bank_account&payment_method_types[2]=sepa_debit"
        )
        guard let secret = call.json["client_secret"]?.stringValue else { throw TestSetupError("No setup intent: \(call.json)") }
        await log.mintedSetupIntent()
        return secret
    }

    // MARK: Adapters

    /// An adapter as an app makes one, with this shop's providers.
    func adapter(
        _ mode: AdapterMode, setupIntents: Bool = true, paymentMethodTypes: [String]? = nil,
        store: (any SelectedPaymentOptionStore)? = nil, baseURL: URL? = nil
    ) -> PurseCustomerAdapter {
        let shop = self
        let mint: @Sendable () async throws -> String = { try await shop.setupIntentClientSecret() }
        let setupIntentProvider = setupIntents ? mint : nil
        switch mode {
        case .ephemeralKey:
            return PurseCustomerAdapter(
                customerEphemeralKeyProvider: { try await shop.ephemeralKey() },
                setupIntentClientSecretProvider: setupIntentProvider, paymentMethodTypes: paymentMethodTypes,
                publishableKey: account.publishableKey, baseURL: baseURL ?? server.baseURL, selectionStore: store
            )
        case .customerSession:
            return PurseCustomerAdapter(
                customerSessionClientSecretProvider: { try await shop.customerSession() },
                setupIntentClientSecretProvider: setupIntentProvider, paymentMethodTypes: paymentMethodTypes,
                publishableKey: account.publishableKey, baseURL: baseURL ?? server.baseURL, selectionStore: store
            )
        }
    }

    // MARK: Set-up with the secret key

    /// Attaches a test token (`pm_card_visa`, ...) to the customer with the secret key; saved
    /// with `allow_redisplay=always` so customer sessions show it too. Returns its id.
    func attach(_ token: String) async throws -> String {
        let attached = try await account.secret.post("/v1/payment_methods/\(token)/attach", "customer=\(customer)")
        guard let id = attached.json["id"]?.stringValue else { throw TestSetupError("Not attached: \(attached.json)") }
        _ = try await account.secret.post("/v1/payment_methods/\(id)", "allow_redisplay=always")
        return id
    }

    /// The payment method as the secret key sees it.
    func paymentMethod(_ id: String) async throws -> HTTPCall {
        try await account.secret.get("/v1/payment_methods/\(id)")
    }
}
