import PurseModels

/// The moves of a setup intent's state machine that a confirmation or the authentication page
/// makes, inside the caller's transaction, each with its event.
struct Transition {
    /// The intent as the transaction locked it.
    let stored: StoredSetupIntent
    /// nil for the system's own moves (the sweep's).
    let request: RequestInfo?
    let secrets: DerivedSecrets
    let publicURL: PublicURL
    /// The sheet settings of a client's confirmation (nil for the secret key, never restricted).
    let settings: CustomerSheetSettings?
    let repositories: Repositories

    /// The account acting: these moves are the system's, for whoever confirmed.
    private var system: Credential { Credential(kind: .secret, accountID: stored.accountID, sourceID: "setup-intent") }

    /// Saved: attached to the intent's customer (if any), `succeeded`. Under `duplicate_cards:
    /// reuse` a card the customer already has is not saved twice: the intent gets the saved one.
    func succeed(paymentMethod: String, mandate: JSONValue?, returnURL: String?) async throws -> SetupIntent {
        var paymentMethod = paymentMethod
        if let customer = stored.intent.customer {
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
                try await repositories.events.record(
                    NewEvent(
                        "payment_method.attached", object: try JSONValueEncoder().encode(attached.method), account: stored.accountID,
                        request: request
                    )
                )
            }
        }
        var updated = stored
        updated.intent.status = .succeeded
        updated.intent.paymentMethod = paymentMethod
        updated.intent.lastSetupError = nil
        updated.microdeposits = nil
        updated.record(mandate: mandate, returnURL: returnURL)
        return try await save(updated, event: "setup_intent.succeeded")
    }

    /// The card asks for authentication, or the bank account waits for `microdeposits`:
    /// `requires_action`, with a new page token.
    func requireAction(
        paymentMethod: String, mandate: JSONValue?, returnURL: String?, microdeposits: PendingMicrodeposits? = nil
    ) async throws -> SetupIntent {
        var updated = stored
        updated.intent.status = .requiresAction
        updated.intent.paymentMethod = paymentMethod
        updated.intent.lastSetupError = nil
        updated.microdeposits = microdeposits
        updated.attempt += 1
        updated.confirmedByClient = settings != nil
        // Locked (key share) until the commit, so the settings cannot vanish under the reference;
        // settings deleted since the confirmation read them leave the default in force.
        if let settings {
            updated.confirmationSettingsID = try await repositories.sheetSettings.find(
                settings.id, account: stored.accountID, lock: .keyShare
            )?.id
        }
        updated.record(mandate: mandate, returnURL: returnURL)
        return try await save(updated, event: "setup_intent.requires_action")
    }

    /// Refused (declined, unusable, authentication failed): back to `requires_payment_method` with
    /// `last_setup_error`. Kept although the request fails, as Stripe does.
    func fail(paymentMethod: String, error: PurseError, type: String) async throws -> SetupIntent {
        let method = try await repositories.paymentMethods.find(paymentMethod, visibleTo: system.visibility, lock: false)?.model
        var updated = stored
        updated.intent.status = .requiresPaymentMethod
        updated.intent.paymentMethod = nil
        updated.microdeposits = nil
        updated.intent.lastSetupError = SetupError(
            code: error.code, declineCode: error.declineCode, message: error.message, param: error.param,
            paymentMethod: method, paymentMethodType: method?.type, type: type
        )
        return try await save(updated, event: "setup_intent.setup_failed")
    }

    /// Writes the intent as it became, with the event of the move.
    private func save(_ updated: StoredSetupIntent, event type: String) async throws -> SetupIntent {
        try await repositories.setupIntents.update(updated)
        let intent = SetupIntentService.render(updated, secrets, publicURL)
        try await repositories.events.record(
            NewEvent(type, object: try SetupIntentService.eventObject(intent), account: stored.accountID, request: request)
        )
        return intent
    }
}

extension StoredSetupIntent {
    /// A confirmation's mandate and return URL; those it does not give stay as they were.
    fileprivate mutating func record(mandate: JSONValue?, returnURL: String?) {
        if let mandate {
            self.mandate = mandate
            intent.mandate = mandate["id"]?.stringValue
        }
        if let returnURL { self.returnURL = returnURL }
    }
}
