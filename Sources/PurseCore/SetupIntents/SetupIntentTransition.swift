import Postgres
import PurseModels

/// The moves of a setup intent's state machine that a confirmation or the authentication page
/// makes, inside the caller's transaction (on its connection), each with its event.
struct Transition {
    let id: String
    let accountID: String
    let customer: String?
    let request: RequestInfo
    let secrets: DerivedSecrets
    let publicURL: PublicURL
    let events: EventRecorder
    /// The sheet settings of a client's confirmation (nil for the secret key, never restricted).
    var settings: CustomerSheetSettings? = nil

    /// The account acting: these moves are the system's, for whoever confirmed.
    private var system: Credential { Credential(kind: .secret, accountID: accountID, sourceID: "setup-intent") }

    /// Saved: attached to the intent's customer (if any), `succeeded`. Under `duplicate_cards:
    /// reuse` a card the customer already has is not saved twice: the intent gets the saved one.
    func succeed(
        paymentMethod: String, mandate: JSONValue?, returnURL: String?, on connection: isolated PostgresConnection
    ) async throws -> SetupIntent {
        var paymentMethod = paymentMethod
        if let customer {
            let repositories = PostgresDatabase.repositories(on: connection)
            let owner = try await CustomerAccess.lockLive(customer, by: system, param: "customer", in: repositories).customer
            if let settings,
                let saved = try await DuplicateCards.reuse(
                    paymentMethod, for: owner.id, settings: settings, caller: system, request: request, in: repositories
                )
            {
                paymentMethod = saved.id
            }
            let attached = try await Attachments.attach(paymentMethod, to: owner.id, caller: system, in: repositories)
            if attached.changed {
                try await events.record(
                    "payment_method.attached", object: try JSONValueEncoder().encode(attached.method), account: accountID,
                    request: request, on: connection
                )
            }
        }
        let updated = try await SetupIntentStore.write(
            """
            UPDATE setup_intents
            SET status = 'succeeded', payment_method_id = \(paymentMethod), last_setup_error = NULL,
                mandate = coalesce(\(mandate.map { PostgresJSON(JSONWriter.string($0)) }), mandate),
                return_url = coalesce(\(returnURL), return_url), updated_at = now()
            WHERE id = \(id)
            """,
            on: connection
        )
        return try await record("setup_intent.succeeded", updated, on: connection)
    }

    /// The card asks for authentication: `requires_action`, with a new page token.
    func requireAction(
        paymentMethod: String, mandate: JSONValue?, returnURL: String?, on connection: isolated PostgresConnection
    ) async throws -> SetupIntent {
        let updated = try await SetupIntentStore.write(
            """
            UPDATE setup_intents
            SET status = 'requires_action', payment_method_id = \(paymentMethod), last_setup_error = NULL,
                authentication_attempt = authentication_attempt + 1, confirmed_by_client = \(settings != nil),
                mandate = coalesce(\(mandate.map { PostgresJSON(JSONWriter.string($0)) }), mandate),
                return_url = coalesce(\(returnURL), return_url), updated_at = now()
            WHERE id = \(id)
            """,
            on: connection
        )
        return try await record("setup_intent.requires_action", updated, on: connection)
    }

    /// Refused (declined, unusable, authentication failed): back to `requires_payment_method` with
    /// `last_setup_error`. Kept although the request fails, as Stripe does.
    func fail(
        paymentMethod: String, error: PurseError, type: String, on connection: isolated PostgresConnection
    ) async throws -> SetupIntent {
        let method = try await PostgresDatabase.repositories(on: connection).paymentMethods.find(
            paymentMethod, visibleTo: system.visibility, lock: false)?.model
        let setupError = SetupError(
            code: error.code, declineCode: error.declineCode, message: error.message, param: error.param,
            paymentMethod: method, paymentMethodType: method?.type, type: type
        )
        let updated = try await SetupIntentStore.write(
            """
            UPDATE setup_intents
            SET status = 'requires_payment_method', payment_method_id = NULL,
                last_setup_error = \(StoredJSON.encode(setupError)), updated_at = now()
            WHERE id = \(id)
            """,
            on: connection
        )
        return try await record("setup_intent.setup_failed", updated, on: connection)
    }

    /// Records the event of the intent as `updated` left it.
    private func record(
        _ type: String, _ updated: StoredSetupIntent, on connection: isolated PostgresConnection
    ) async throws -> SetupIntent {
        let intent = SetupIntentService.render(updated, secrets, publicURL)
        try await events.record(type, object: try SetupIntentService.eventObject(intent), account: accountID, request: request, on: connection)
        return intent
    }
}
