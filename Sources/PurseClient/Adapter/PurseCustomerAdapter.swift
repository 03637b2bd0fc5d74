public import Foundation
public import PurseModels

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The ready ``CustomerAdapter`` for Purse, the counterpart of stripe-ios's
/// `StripeCustomerAdapter` (and of its customer-session mode).
///
/// Build it from one of two providers, both calls to your own backend, which holds Purse's
/// secret key:
/// - ``init(customerEphemeralKeyProvider:setupIntentClientSecretProvider:paymentMethodTypes:publishableKey:baseURL:selectionStore:urlSession:)``:
///   an ephemeral key for the signed-in customer. The adapter uses it for 30 minutes, and asks
///   for a new one once when Purse answers 401 (then retries the call).
/// - ``init(customerSessionClientSecretProvider:setupIntentClientSecretProvider:paymentMethodTypes:publishableKey:baseURL:selectionStore:urlSession:)``:
///   a customer session's client secret. The adapter presents it with the publishable key to
///   `GET /v1/elements/sessions`, uses the key the session hands out until shortly before it
///   expires, and asks for a new session once when Purse refuses it.
///
/// ```swift
/// let adapter = PurseCustomerAdapter(
///     customerEphemeralKeyProvider: {
///         let json = try await myBackend.post("/customer-sheet/ephemeral-key")
///         return CustomerEphemeralKey(customerId: json.customer, ephemeralKeySecret: json.ephemeralKey)
///     },
///     setupIntentClientSecretProvider: { try await myBackend.post("/customer-sheet/setup-intent").clientSecret },
///     publishableKey: "pk_test_...",
///     baseURL: URL(string: "https://purse.example.com")!
/// )
/// ```
///
/// Subclass it to change what the sheet shows; for example only debit cards:
///
/// ```swift
/// final class DebitCardsOnly: PurseCustomerAdapter, @unchecked Sendable {
///     override func fetchPaymentMethods() async throws -> [PaymentMethod] {
///         try await super.fetchPaymentMethods().filter { $0.card?.funding == "debit" }
///     }
/// }
/// ```
///
/// The selected option lives on Purse (`/v1/customers/{id}/selected_payment_option`), so every
/// device of the customer shows the same one; the adapter keeps the last one it saw in memory
/// and in an optional ``SelectedPaymentOptionStore`` and answers from them when Purse cannot be
/// reached.
open class PurseCustomerAdapter: CustomerAdapter, @unchecked Sendable {
    // @unchecked: an open class cannot be checked as Sendable. It is safe: every stored
    // property is a `let` of a Sendable type, and what changes (the credential, the selection
    // cache) lives in actors. Subclasses must keep to the same rule.

    /// Where `purse serve` listens by default.
    public static let defaultBaseURL = URL(string: "http://127.0.0.1:4242")!

    /// The types every Purse sheet can add and show.
    public static let supportedPaymentMethodTypes = ["card", "us_bank_account", "sepa_debit"]

    /// The account's publishable key (`pk_test_...`), sent on the calls that need no customer
    /// credential: confirming setup intents and reading elements sessions.
    public let publishableKey: String
    /// Purse's base URL.
    public let baseURL: URL

    private let configuredPaymentMethodTypes: [String]?
    private let setupIntentClientSecretProvider: (@Sendable () async throws -> String)?
    private let usesCustomerSession: Bool
    private let credentials: CustomerCredentialCache
    private let selection: SelectionCache
    let http: PurseHTTPClient

    /// An adapter acting with ephemeral keys from `customerEphemeralKeyProvider`.
    ///
    /// - Parameters:
    ///   - customerEphemeralKeyProvider: asks your backend for an ephemeral key of the
    ///     signed-in customer (`POST /v1/ephemeral_keys` with the secret key and
    ///     `Stripe-Version: 2020-08-27`).
    ///   - setupIntentClientSecretProvider: asks your backend for a new setup intent's client
    ///     secret for the customer; without it the sheet can add cards only.
    ///   - paymentMethodTypes: the types to show and add (a subset of
    ///     ``supportedPaymentMethodTypes``), or nil for all.
    ///   - publishableKey: the account's publishable key.
    ///   - baseURL: where Purse is (default `http://127.0.0.1:4242`).
    ///   - selectionStore: a device-local copy of the selected option for offline reads.
    ///   - urlSession: the session to send requests with (default: one that never caches).
    public init(
        customerEphemeralKeyProvider: @escaping @Sendable () async throws -> CustomerEphemeralKey,
        setupIntentClientSecretProvider: (@Sendable () async throws -> String)? = nil,
        paymentMethodTypes: [String]? = nil,
        publishableKey: String,
        baseURL: URL = PurseCustomerAdapter.defaultBaseURL,
        selectionStore: (any SelectedPaymentOptionStore)? = nil,
        urlSession: URLSession? = nil
    ) {
        self.publishableKey = publishableKey
        self.baseURL = baseURL
        configuredPaymentMethodTypes = paymentMethodTypes
        self.setupIntentClientSecretProvider = setupIntentClientSecretProvider
        usesCustomerSession = false
        credentials = CustomerCredentialCache {
            .ephemeralKey(try await customerEphemeralKeyProvider(), now: Date())
        }
        selection = SelectionCache(store: selectionStore)
        http = PurseHTTPClient(baseURL: baseURL, session: urlSession ?? PurseHTTPClient.defaultSession)
    }

    /// An adapter acting with the key of customer sessions from
    /// `customerSessionClientSecretProvider`.
    ///
    /// - Parameters:
    ///   - customerSessionClientSecretProvider: asks your backend for a customer session of the
    ///     signed-in customer (`POST /v1/customer_sessions` with the secret key and
    ///     `components[customer_sheet][enabled]=true`).
    ///   - setupIntentClientSecretProvider: asks your backend for a new setup intent's client
    ///     secret for the customer; without it the sheet can add cards only.
    ///   - paymentMethodTypes: the types to show and add, or nil for all.
    ///   - publishableKey: the account's publishable key.
    ///   - baseURL: where Purse is (default `http://127.0.0.1:4242`).
    ///   - selectionStore: a device-local copy of the selected option for offline reads.
    ///   - urlSession: the session to send requests with (default: one that never caches).
    public init(
        customerSessionClientSecretProvider: @escaping @Sendable () async throws -> CustomerSessionClientSecret,
        setupIntentClientSecretProvider: (@Sendable () async throws -> String)? = nil,
        paymentMethodTypes: [String]? = nil,
        publishableKey: String,
        baseURL: URL = PurseCustomerAdapter.defaultBaseURL,
        selectionStore: (any SelectedPaymentOptionStore)? = nil,
        urlSession: URLSession? = nil
    ) {
        let http = PurseHTTPClient(baseURL: baseURL, session: urlSession ?? PurseHTTPClient.defaultSession)
        let types = paymentMethodTypes ?? Self.supportedPaymentMethodTypes
        self.publishableKey = publishableKey
        self.baseURL = baseURL
        configuredPaymentMethodTypes = paymentMethodTypes
        self.setupIntentClientSecretProvider = setupIntentClientSecretProvider
        usesCustomerSession = true
        credentials = CustomerCredentialCache {
            let secret = try await customerSessionClientSecretProvider()
            let answer = try await Self.elementsSession(
                customerSessionClientSecret: secret.clientSecret, types: types, http: http, publishableKey: publishableKey
            )
            guard let key = answer.body.customer?.customerSession else {
                throw PurseClientError.unreadable(status: 200, requestID: answer.requestID, type: "customer session's elements session")
            }
            return .sessionKey(
                customerID: key.customer, apiKey: key.apiKey, expiresAt: Date(timeIntervalSince1970: TimeInterval(key.apiKeyExpiry)),
                clientSecret: secret.clientSecret, now: Date()
            )
        }
        selection = SelectionCache(store: selectionStore)
        self.http = http
    }

    // MARK: - CustomerAdapter

    /// The types to show and add, as given at creation (nil: all of them).
    open var paymentMethodTypes: [String]? { configuredPaymentMethodTypes }

    /// Whether the adapter has a setup-intent provider.
    open var canCreateSetupIntents: Bool { setupIntentClientSecretProvider != nil }

    /// The customer's saved methods of ``paymentMethodTypes``, newest first: with an ephemeral
    /// key, `GET /v1/payment_methods?customer=&limit=100` page by page (one list for every type,
    /// so the order is the server's even for methods saved in the same second, where stripe-ios
    /// asks once per type); with a customer session, the elements session's
    /// `customer.payment_methods`. Purse has already applied the sheet settings' saved-method
    /// filter (and, for a session, its redisplay filters). Override it to filter further.
    open func fetchPaymentMethods() async throws -> [PaymentMethod] {
        let types = try validatedTypes()
        return try await withCustomerKey { credential in
            if credential.sessionClientSecret != nil {
                let session = try await self.elementsSession(for: credential)
                return (session.customer?.paymentMethods ?? []).filter { types.contains($0.type) }
            }
            var methods: [PaymentMethod] = []
            var query: FormValue = ["customer": .string(credential.customerID), "limit": "100"]
            while true {
                let page = try await self.http.get(
                    "/v1/payment_methods", query: query, key: credential.apiKey, as: ListObject<PaymentMethod>.self
                ).body
                methods += page.data
                guard page.hasMore, let last = page.data.last else { break }
                query.set("starting_after", .string(last.id))
            }
            return methods.filter { types.contains($0.type) }
        }
    }

    /// Attaches a payment method made with the publishable key to the customer
    /// (`POST /v1/payment_methods/{id}/attach`).
    open func attachPaymentMethod(_ paymentMethodId: String) async throws {
        _ = try await attach(paymentMethodId)
    }

    /// Removes a saved method for good: `POST /v1/payment_methods/{id}/detach`, or with a
    /// customer session `POST /v1/elements/payment_methods/{id}/detach` (refused when the
    /// session's `payment_method_remove` feature is disabled). Detaching the selected method
    /// clears the selection on the server; the local copy follows.
    open func detachPaymentMethod(paymentMethodId: String) async throws {
        let id = PurseHTTPClient.segment(paymentMethodId)
        let customer = try await withCustomerKey { credential in
            if let sessionSecret = credential.sessionClientSecret {
                _ = try await self.http.post(
                    "/v1/elements/payment_methods/\(id)/detach",
                    form: ["customer_session_client_secret": .string(sessionSecret)], key: credential.apiKey,
                    as: PaymentMethod.self
                )
            } else {
                _ = try await self.http.post("/v1/payment_methods/\(id)/detach", key: credential.apiKey, as: PaymentMethod.self)
            }
            return credential.customerID
        }
        if case .some(.some(.stripeId(paymentMethodId))) = await selection.lastKnown(forCustomer: customer) {
            await selection.remember(nil, forCustomer: customer)
        }
    }

    /// Saves the customer's choice on Purse (`POST /v1/customers/{id}/selected_payment_option`),
    /// where every device of the customer reads it; nil clears it. Selecting a saved method also
    /// makes it the customer's `invoice_settings.default_payment_method`.
    open func setSelectedPaymentOption(paymentOption: CustomerPaymentOption?) async throws {
        let (customer, selected) = try await withCustomerKey { credential in
            let answer = try await self.http.post(
                "/v1/customers/\(PurseHTTPClient.segment(credential.customerID))/selected_payment_option",
                form: ["option": .string(paymentOption?.rawValue ?? "")], key: credential.apiKey, as: SelectedPaymentOption.self
            )
            return (credential.customerID, answer.body)
        }
        await selection.remember(selected.option.flatMap(CustomerPaymentOption.init(rawValue:)), forCustomer: customer)
    }

    /// The customer's choice as Purse has it (`GET /v1/customers/{id}/selected_payment_option`).
    /// When Purse cannot be reached, the last choice this adapter or its
    /// ``SelectedPaymentOptionStore`` saw for the customer; the error when there is none.
    open func fetchSelectedPaymentOption() async throws -> CustomerPaymentOption? {
        do {
            let (customer, selected) = try await withCustomerKey { credential in
                let answer = try await self.http.get(
                    "/v1/customers/\(PurseHTTPClient.segment(credential.customerID))/selected_payment_option",
                    key: credential.apiKey, as: SelectedPaymentOption.self
                )
                return (credential.customerID, answer.body)
            }
            let option = selected.option.flatMap(CustomerPaymentOption.init(rawValue:))
            await selection.remember(option, forCustomer: customer)
            return option
        } catch let error where Self.isUnreachable(error) {
            guard let customer = await credentials.lastCustomerID,
                let known = await selection.lastKnown(forCustomer: customer)
            else { throw error }
            return known
        }
    }

    /// A new setup intent's client secret from the app's provider.
    open func setupIntentClientSecretForCustomerAttach() async throws -> String {
        guard let setupIntentClientSecretProvider else {
            throw PurseClientError(
                kind: .invalidRequest(
                    param: "setupIntentClientSecretProvider",
                    message: "This adapter was made without a setup-intent provider, so it cannot create setup intents."
                ),
                requestID: nil, message: "This adapter was made without a setup-intent provider."
            )
        }
        return try await setupIntentClientSecretProvider()
    }

    /// Changes a saved method (`POST /v1/payment_methods/{id}`) and returns it.
    open func updatePaymentMethod(
        paymentMethodId: String, paymentMethodUpdateParams: PaymentMethodUpdateParams
    ) async throws -> PaymentMethod {
        try await withCustomerKey { credential in
            try await self.http.post(
                "/v1/payment_methods/\(PurseHTTPClient.segment(paymentMethodId))", form: paymentMethodUpdateParams.form,
                key: credential.apiKey, as: PaymentMethod.self
            ).body
        }
    }

    // MARK: - Beyond the protocol

    /// The selected option ready to show (label and brand, spec §7), or nil when there is none
    /// or when ``fetchPaymentMethods()`` (yours, if you override it) does not list the selected
    /// method, as stripe-ios's `retrievePaymentOptionSelection()` decides.
    open func retrievePaymentOptionSelection() async throws -> PaymentOptionSelection? {
        switch try await fetchSelectedPaymentOption() {
        case nil:
            return nil
        case .applePay:
            return .applePay(paymentOptionDisplayData: .applePay)
        case .link:
            return .link(paymentOptionDisplayData: .link)
        case .stripeId(let id):
            guard let method = try await fetchPaymentMethods().first(where: { $0.id == id }) else { return nil }
            return .paymentMethod(paymentMethod: method, paymentOptionDisplayData: PaymentOptionDisplayData(method))
        }
    }

    /// The sheet settings in force for the customer: `GET /v1/customer_sheet_settings/current`
    /// with an ephemeral key, the elements session's `customer_sheet_settings` with a customer
    /// session. Build a ``BillingDetailsForm`` from them to know what to ask for.
    open func sheetSettings() async throws -> CustomerSheetSettings {
        try await withCustomerKey { credential in
            if credential.sessionClientSecret != nil {
                let session = try await self.elementsSession(for: credential)
                guard let settings = session.customerSheetSettings else {
                    throw PurseClientError.unreadable(status: 200, requestID: nil, type: "elements session with sheet settings")
                }
                return settings
            }
            return try await self.http.get(
                "/v1/customer_sheet_settings/current", key: credential.apiKey, as: CustomerSheetSettings.self
            ).body
        }
    }

    /// The customer's id, from the current credential (asking the provider when there is none).
    public func customerID() async throws -> String {
        try await credentials.current().customerID
    }

    // MARK: - Shared with the setup flows

    /// Runs `call` with the customer credential; when Purse refuses it as stale, gets a new one
    /// from the provider (once) and runs `call` again.
    func withCustomerKey<Result: Sendable>(
        _ call: (CustomerCredential) async throws -> Result
    ) async throws -> Result {
        let credential = try await credentials.current()
        do {
            return try await call(credential)
        } catch let error as PurseClientError where Self.isStale(error) {
            return try await call(try await credentials.renew(after: credential))
        }
    }

    /// `allow_redisplay` for methods the sheet saves: `always` with a customer session (whose
    /// redisplay filter is `always` by default), `unspecified` with an ephemeral key, as stripe-ios.
    var allowRedisplayForNewMethods: String { usesCustomerSession ? "always" : "unspecified" }

    /// Attaches and returns the payment method.
    func attach(_ paymentMethodId: String) async throws -> PaymentMethod {
        try await withCustomerKey { credential in
            try await self.http.post(
                "/v1/payment_methods/\(PurseHTTPClient.segment(paymentMethodId))/attach",
                form: ["customer": .string(credential.customerID)], key: credential.apiKey, as: PaymentMethod.self
            ).body
        }
    }

    /// Retrieves one of the customer's payment methods.
    func paymentMethod(_ paymentMethodId: String) async throws -> PaymentMethod {
        try await withCustomerKey { credential in
            try await self.http.get(
                "/v1/payment_methods/\(PurseHTTPClient.segment(paymentMethodId))", key: credential.apiKey, as: PaymentMethod.self
            ).body
        }
    }

    // MARK: - Helpers

    private func validatedTypes() throws -> [String] {
        guard let types = paymentMethodTypes, !types.isEmpty else { return Self.supportedPaymentMethodTypes }
        if let unsupported = types.first(where: { !Self.supportedPaymentMethodTypes.contains($0) }) {
            throw PurseClientError(
                kind: .invalidRequest(param: "paymentMethodTypes", message: "Purse sheets do not support \(unsupported)."),
                requestID: nil, message: "Purse sheets do not support \(unsupported)."
            )
        }
        return types
    }

    /// The elements session of the credential's customer session.
    private func elementsSession(for credential: CustomerCredential) async throws -> ElementsSessionResponse {
        try await Self.elementsSession(
            customerSessionClientSecret: credential.sessionClientSecret ?? "", types: validatedTypes(), http: http,
            publishableKey: publishableKey
        ).body
    }

    /// `GET /v1/elements/sessions` for a customer session, as stripe-ios's CustomerSheet asks.
    private static func elementsSession(
        customerSessionClientSecret: String, types: [String], http: PurseHTTPClient, publishableKey: String
    ) async throws -> PurseHTTPClient.Answer<ElementsSessionResponse> {
        let query: FormValue = [
            "type": "deferred_intent",
            "deferred_intent": ["mode": "setup", "payment_method_types": .list(types.map(FormValue.string))],
            "customer_session_client_secret": .string(customerSessionClientSecret),
        ]
        return try await http.get("/v1/elements/sessions", query: query, key: publishableKey)
    }

    /// Whether Purse refused the customer credential as no longer valid: a 401, or a customer
    /// session that expired or was revoked.
    private static func isStale(_ error: PurseClientError) -> Bool {
        if error.kind == .unauthenticated || error.code == "customer_session_expired" { return true }
        if case .invalidRequest(param: "customer_session_client_secret", _) = error.kind { return error.code == "resource_missing" }
        return false
    }

    /// Whether `error` means Purse (or the app's backend, for a provider) could not be reached.
    private static func isUnreachable(_ error: any Error) -> Bool {
        if let error = error as? PurseClientError { return error.kind == .transport }
        return error is URLError
    }
}
