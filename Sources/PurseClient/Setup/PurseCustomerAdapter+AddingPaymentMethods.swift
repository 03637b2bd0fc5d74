public import Foundation
public import PurseModels

/// Saving new payment methods from details the customer entered: through a setup intent (any
/// type), or, without a setup-intent provider, by creating a card with the publishable key and
/// attaching it, the two paths stripe-ios's CustomerSheet takes.
extension PurseCustomerAdapter {
    /// Saves `details` for the customer.
    ///
    /// With a setup-intent provider: gets a new intent's client secret from it and calls
    /// ``confirmSetupIntent(clientSecret:details:billingDetails:returnURL:)``. Without one (cards
    /// only): creates the card with the publishable key (`POST /v1/payment_methods`) under the
    /// settings in force and attaches it, which needs no authentication.
    ///
    /// - Returns: ``SetupOutcome/succeeded(_:)`` with the saved method, or
    ///   ``SetupOutcome/requiresAction(_:)`` when the bank asks the customer to authenticate.
    /// - Throws: ``PurseClientError``; a declined card is
    ///   ``PurseClientError/Kind/cardDeclined(code:)``.
    public func addPaymentMethod(
        _ details: PaymentMethodDetails, billingDetails: BillingDetails = BillingDetails(), returnURL: URL? = nil
    ) async throws -> SetupOutcome {
        if canCreateSetupIntents {
            let clientSecret = try await setupIntentClientSecretForCustomerAttach()
            return try await confirmSetupIntent(
                clientSecret: clientSecret, details: details, billingDetails: billingDetails, returnURL: returnURL
            )
        }
        guard case .card = details else {
            throw PurseClientError(
                kind: .invalidRequest(param: "type", message: "Only cards can be added without a setup intent."),
                requestID: nil, message: "Only cards can be added without a setup intent."
            )
        }
        let form = BillingDetailsForm(settings: try await sheetSettings(), paymentMethodType: details.type)
        var parameters: FormValue = ["type": .string(details.type), details.type: details.form]
        parameters.set("billing_details", form.billingDetails(entered: billingDetails).form.nonEmpty)
        parameters.set("allow_redisplay", .string(allowRedisplayForNewMethods))
        let created = try await http.post("/v1/payment_methods", form: parameters, key: publishableKey, as: PaymentMethod.self)
        return .succeeded(try await attach(created.body.id))
    }

    /// Confirms the setup intent of `clientSecret` with the details the customer entered
    /// (`POST /v1/setup_intents/{id}/confirm` with the publishable key), as stripe-ios does.
    ///
    /// First reads the sheet settings that govern this intent (its elements session's
    /// `customer_sheet_settings`: a confirmation is checked against its intent's settings) and
    /// applies them through a ``BillingDetailsForm``: fields the settings do not collect are
    /// dropped, and the defaults are attached when `attach_defaults_to_payment_method` is on.
    /// Bank debits carry an online mandate accepted in the app
    /// (`mandate_data[customer_acceptance][online][infer_from_client]=true`).
    ///
    /// - Parameters:
    ///   - clientSecret: the intent's client secret (`seti_..._secret_...`).
    ///   - details: the card or bank details.
    ///   - billingDetails: what the customer entered of the billing details.
    ///   - returnURL: where the 3D Secure page sends the customer back to, if anywhere.
    public func confirmSetupIntent(
        clientSecret: String, details: PaymentMethodDetails, billingDetails: BillingDetails = BillingDetails(),
        returnURL: URL? = nil
    ) async throws -> SetupOutcome {
        let intentID = try Self.setupIntentID(from: clientSecret)
        let session = try await http.get(
            "/v1/elements/sessions", query: ["type": "setup_intent", "client_secret": .string(clientSecret)], key: publishableKey,
            as: ElementsSessionResponse.self
        )
        var paymentMethodData: FormValue = ["type": .string(details.type), details.type: details.form]
        if let settings = session.body.customerSheetSettings {
            let form = BillingDetailsForm(settings: settings, paymentMethodType: details.type)
            paymentMethodData.set("billing_details", form.billingDetails(entered: billingDetails).form.nonEmpty)
        } else {
            paymentMethodData.set("billing_details", billingDetails.form.nonEmpty)
        }
        paymentMethodData.set("allow_redisplay", .string(allowRedisplayForNewMethods))
        var parameters: FormValue = ["client_secret": .string(clientSecret), "payment_method_data": paymentMethodData]
        if details.needsMandate {
            parameters.set("mandate_data", ["customer_acceptance": ["type": "online", "online": ["infer_from_client": "true"]]])
        }
        parameters.set("return_url", returnURL.map { .string($0.absoluteString) })
        parameters.set("expand", ["payment_method"])
        let confirmed = try await http.post(
            "/v1/setup_intents/\(PurseHTTPClient.segment(intentID))/confirm", form: parameters, key: publishableKey,
            as: ClientSetupIntent.self
        )
        return try await outcome(of: confirmed, clientSecret: clientSecret)
    }

    /// Finishes a setup after the customer comes back from the authentication page: reads the
    /// intent again with its client secret (`GET /v1/setup_intents/{id}`) and reports where it
    /// stands.
    ///
    /// - Returns: ``SetupOutcome/succeeded(_:)`` once authenticated, or
    ///   ``SetupOutcome/requiresAction(_:)`` again if the customer has not finished yet.
    /// - Throws: the failure the intent recorded when authentication failed
    ///   (``PurseClientError/Kind/invalidRequest(param:message:)``, code
    ///   `setup_intent_authentication_failure`).
    public func finishSetup(_ pending: PendingAuthentication) async throws -> SetupOutcome {
        let intent = try await http.get(
            "/v1/setup_intents/\(PurseHTTPClient.segment(pending.setupIntentID))",
            query: ["client_secret": .string(pending.clientSecret), "expand": ["payment_method"]], key: publishableKey,
            as: ClientSetupIntent.self
        )
        return try await outcome(of: intent, clientSecret: pending.clientSecret)
    }

    private func outcome(
        of answer: PurseHTTPClient.Answer<ClientSetupIntent>, clientSecret: String
    ) async throws -> SetupOutcome {
        let intent = answer.body
        switch intent.status {
        case "succeeded":
            switch intent.paymentMethod {
            case .object(let method): return .succeeded(method)
            case .id(let id): return .succeeded(try await paymentMethod(id))
            case nil:
                throw PurseClientError.unreadable(status: 200, requestID: answer.requestID, type: "succeeded setup intent with its payment method")
            }
        case "requires_action":
            guard let redirect = intent.nextAction?.redirectToURL, let url = URL(string: redirect.url) else {
                throw PurseClientError.unreadable(status: 200, requestID: answer.requestID, type: "setup intent with a redirect to follow")
            }
            return .requiresAction(
                PendingAuthentication(
                    url: url, returnURL: redirect.returnURL.flatMap(URL.init(string:)), setupIntentID: intent.id,
                    clientSecret: clientSecret
                )
            )
        default:
            if let failure = intent.lastSetupError { throw PurseClientError.setupFailed(failure, requestID: answer.requestID) }
            let message = "The setup intent is \(intent.status)."
            throw PurseClientError(
                kind: .invalidRequest(param: nil, message: message), requestID: answer.requestID, httpStatus: 200, message: message
            )
        }
    }

    /// `seti_123` from `seti_123_secret_abc`.
    private static func setupIntentID(from clientSecret: String) throws -> String {
        guard let range = clientSecret.range(of: "_secret_"), clientSecret.hasPrefix("seti_") else {
            let message = "Not a setup intent client secret: expected seti_..._secret_..."
            throw PurseClientError(kind: .invalidRequest(param: "client_secret", message: message), requestID: nil, message: message)
        }
        return String(clientSecret[..<range.lowerBound])
    }
}
