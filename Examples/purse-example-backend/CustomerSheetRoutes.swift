import Hummingbird
import PurseModels

/// The routes an app's customer sheet calls. Each signs in the user, finds their customer, and
/// mints one short-lived credential with Purse's secret key; the key itself never leaves here.
struct CustomerSheetRoutes: Sendable {
    let purse: PurseSecretAPI
    let customers: CustomerDirectory
    let publishableKey: String

    func register(on router: Router<BasicRequestContext>) {
        router.get("/config", use: config)
        router.post("/customer-sheet/ephemeral-key", use: ephemeralKey)
        router.post("/customer-sheet/customer-session", use: customerSession)
        router.post("/customer-sheet/setup-intent", use: setupIntent)
    }

    /// What an app needs to know before anything else: the publishable key and where Purse is.
    struct Config: ResponseEncodable {
        let publishableKey: String
        let purseURL: String

        enum CodingKeys: String, CodingKey {
            case publishableKey = "publishable_key"
            case purseURL = "purse_url"
        }
    }

    @Sendable func config(_ request: Request, _ context: BasicRequestContext) async throws -> Config {
        Config(publishableKey: publishableKey, purseURL: purse.baseURL.absoluteString)
    }

    /// `{customer, ephemeral_key}` for `CustomerEphemeralKey(customerId:ephemeralKeySecret:)`.
    struct EphemeralKeyAnswer: ResponseEncodable {
        let customer: String
        let ephemeralKey: String

        enum CodingKeys: String, CodingKey {
            case customer
            case ephemeralKey = "ephemeral_key"
        }
    }

    @Sendable func ephemeralKey(_ request: Request, _ context: BasicRequestContext) async throws -> EphemeralKeyAnswer {
        let customer = try await customers.customer(for: DemoUsers.user(of: request))
        // The key is rendered for the mobile SDK's API version, which the app sends (stripe-ios: 2020-08-27).
        let version = request.uri.queryParameters.get("api_version") ?? "2020-08-27"
        let key = try await purse.post(
            "/v1/ephemeral_keys", [("customer", customer)], headers: ["Stripe-Version": version], as: EphemeralKey.self
        )
        guard let secret = key.secret else { throw HTTPError(.badGateway, message: "Purse returned no key secret") }
        return EphemeralKeyAnswer(customer: customer, ephemeralKey: secret)
    }

    /// `{customer, customer_session_client_secret}` for `CustomerSessionClientSecret(customerId:clientSecret:)`.
    struct CustomerSessionAnswer: ResponseEncodable {
        let customer: String
        let customerSessionClientSecret: String

        enum CodingKeys: String, CodingKey {
            case customer
            case customerSessionClientSecret = "customer_session_client_secret"
        }
    }

    @Sendable func customerSession(_ request: Request, _ context: BasicRequestContext) async throws -> CustomerSessionAnswer {
        let customer = try await customers.customer(for: DemoUsers.user(of: request))
        let session = try await purse.post(
            "/v1/customer_sessions",
            [
                ("customer", customer),
                ("components[customer_sheet][enabled]", "true"),
                ("components[customer_sheet][features][payment_method_remove]", "enabled"),
                // Show what the ephemeral-key mode saved too (it saves with allow_redisplay=unspecified).
                ("components[customer_sheet][features][payment_method_allow_redisplay_filters][0]", "always"),
                ("components[customer_sheet][features][payment_method_allow_redisplay_filters][1]", "limited"),
                ("components[customer_sheet][features][payment_method_allow_redisplay_filters][2]", "unspecified"),
            ],
            as: CustomerSession.self
        )
        guard let secret = session.clientSecret else { throw HTTPError(.badGateway, message: "Purse returned no client secret") }
        return CustomerSessionAnswer(customer: customer, customerSessionClientSecret: secret)
    }

    /// `{client_secret}` of a new setup intent for the signed-in user's customer.
    struct SetupIntentAnswer: ResponseEncodable {
        let clientSecret: String

        enum CodingKeys: String, CodingKey { case clientSecret = "client_secret" }
    }

    @Sendable func setupIntent(_ request: Request, _ context: BasicRequestContext) async throws -> SetupIntentAnswer {
        let customer = try await customers.customer(for: DemoUsers.user(of: request))
        let intent = try await purse.post(
            "/v1/setup_intents",
            [
                ("customer", customer),
                ("payment_method_types[0]", "card"),
                ("payment_method_types[1]", "us_bank_account"),
                ("payment_method_types[2]", "sepa_debit"),
            ],
            as: SetupIntent.self
        )
        guard let secret = intent.clientSecret else { throw HTTPError(.badGateway, message: "Purse returned no client secret") }
        return SetupIntentAnswer(clientSecret: secret)
    }
}
