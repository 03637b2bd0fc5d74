public import PurseModels

/// Setup intents: create, retrieve, update, confirm (with 3D Secure through Purse's page,
/// mandates for bank debits, and microdeposits for bank accounts typed in), cancel, list; and the
/// sweep of abandoned ones.
public struct SetupIntentService: Sendable {
    private let database: any Database
    private let processor: any Processor
    private let factory: PaymentMethodFactory
    private let secrets: DerivedSecrets
    private let publicURL: PublicURL
    /// The sheet settings a client's confirmation enforces are read through its cache.
    private let caches: ChangeCaches

    public init(
        database: any Database, processor: any Processor, masterKey: MasterKey, publicURL: PublicURL, caches: ChangeCaches
    ) {
        self.database = database
        self.caches = caches
        self.processor = processor
        self.factory = PaymentMethodFactory(processor: processor, fingerprinter: Fingerprinter(masterKey: masterKey))
        self.secrets = DerivedSecrets(masterKey: masterKey)
        self.publicURL = publicURL
    }

    // MARK: - Create, retrieve, update, list, cancel

    public func create(_ params: SetupIntentCreateParameters, by caller: Credential, request: RequestInfo) async throws -> SetupIntent {
        let factory = self.factory
        let types = try Self.types(params.paymentMethodTypes, automatic: params.automaticPaymentMethods)
        if params.mandateData != nil, params.confirm != true {
            throw PurseError.invalidParameter("mandate_data", "mandate_data can only be given with confirm=true.")
        }
        let returnURL = try ReturnURL.checked(params.returnURL)
        var requestedOptions = SetupIntentOptions()
        try requestedOptions.apply(params.paymentMethodOptions, confirming: params.confirm == true)
        let options = requestedOptions
        let description = try TextRules.limited(params.description, to: 1000, param: "description")
        let metadata = try MetadataRules.new(params.metadata)
        let id = ObjectID.make(.setupIntent)
        let linked = try await FinancialConnectionsService.linkedAccount(
            in: params.paymentMethodData, prefix: "payment_method_data", setupIntent: id, caller: caller, database: database
        )
        let newMethod = try params.paymentMethodData.map {
            try factory.make($0, account: caller.accountID, prefix: "payment_method_data", linked: linked)
        }
        if params.confirm == true {
            try await checkConfirmable(params, types: types, options: options, newMethod: newMethod, caller: caller)
        }
        let customer = params.customer
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        let created = try await database.transaction { repositories -> SetupIntent in
            // An intent for a customer on a test clock is created at the clock's time.
            var now = Clock.now
            if let customer {
                guard let clock = try await repositories.customers.clock(ofLive: customer, visibleTo: caller.visibility) else {
                    throw PurseError.noSuch("customer", customer, param: "customer")
                }
                now = clock.time ?? now
            }
            let settings = try await SheetSettingsService.bindable(
                params.customerSheetSettings, account: caller.accountID, in: repositories
            )
            var methodID = newMethod?.model.id
            if let newMethod { try await repositories.paymentMethods.insert(newMethod, account: caller.accountID, customer: nil) }
            if let requested = params.paymentMethod {
                methodID = try await Self.usablePaymentMethod(
                    requested, for: customer, caller: caller, factory: factory, in: repositories
                ).model.id
            }
            var intent = SetupIntent(
                id: id, created: now, customer: customer, description: description, metadata: metadata, paymentMethod: methodID,
                paymentMethodTypes: types.map(\.rawValue),
                status: methodID == nil ? .requiresPaymentMethod : .requiresConfirmation, usage: (params.usage ?? .offSession).rawValue
            )
            intent.customerSheetSettings = settings
            let stored = StoredSetupIntent(intent: intent, accountID: caller.accountID, returnURL: returnURL, options: options)
            try await repositories.setupIntents.insert(stored)
            let rendered = Self.render(stored, secrets, publicURL)
            try await repositories.events.record(
                NewEvent("setup_intent.created", object: try Self.eventObject(rendered), account: caller.accountID, request: request)
            )
            return rendered
        }
        guard params.confirm == true else { return created }
        var confirmation = SetupIntentConfirmParameters()
        confirmation.mandateData = params.mandateData
        confirmation.returnURL = params.returnURL
        confirmation.paymentMethodOptions = params.paymentMethodOptions
        return try await confirm(id, confirmation, by: caller, request: request)
    }

    public func retrieve(_ id: String, clientSecret: String?, by caller: Credential) async throws -> SetupIntent {
        let stored = try await database.autocommit { try await $0.setupIntents.find(id, account: caller.accountID, lock: false) }
        guard let stored else { throw PurseError.noSuch("setupintent", id, param: "intent", inPath: true) }
        try Self.checkClientSecret(clientSecret, of: id, caller: caller, secrets: secrets)
        return Self.render(stored, secrets, publicURL)
    }

    public func update(
        _ id: String, _ params: SetupIntentUpdateParameters, by caller: Credential, request: RequestInfo
    ) async throws -> SetupIntent {
        let factory = self.factory
        let linked = try await FinancialConnectionsService.linkedAccount(
            in: params.paymentMethodData, prefix: "payment_method_data", setupIntent: id, caller: caller, database: database
        )
        let newMethod = try params.paymentMethodData.map {
            try factory.make($0, account: caller.accountID, prefix: "payment_method_data", linked: linked)
        }
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        return try await database.transaction { repositories in
            guard let stored = try await repositories.setupIntents.find(id, account: caller.accountID, lock: true) else {
                throw PurseError.noSuch("setupintent", id, param: "intent", inPath: true)
            }
            try Self.requireOpen(stored, action: "update", caller: caller, secrets: secrets, publicURL: publicURL)
            var updated = stored
            if let customer = params.customer {
                if let value = customer.value, !(try await repositories.customers.isLive(value, visibleTo: caller.visibility)) {
                    throw PurseError.noSuch("customer", value, param: "customer")
                }
                updated.intent.customer = customer.value
            }
            if let types = params.paymentMethodTypes {
                updated.intent.paymentMethodTypes = try Self.types(types, automatic: nil).map(\.rawValue)
            }
            try updated.options.apply(params.paymentMethodOptions, confirming: false)
            if let description = params.description {
                updated.intent.description = try TextRules.limited(description.value, to: 1000, param: "description")
            }
            updated.intent.metadata = try MetadataRules.updated(stored.intent.metadata, with: params.metadata)
            if let newMethod {
                try await repositories.paymentMethods.insert(newMethod, account: caller.accountID, customer: nil)
                updated.intent.paymentMethod = newMethod.model.id
            }
            switch params.paymentMethod {
            case nil: break
            case .clear: updated.intent.paymentMethod = nil
            case .set(let requested):
                updated.intent.paymentMethod = try await Self.usablePaymentMethod(
                    requested, for: updated.intent.customer, caller: caller, factory: factory, in: repositories
                ).model.id
            }
            // A new payment method always needs a new confirmation: an authentication page for the
            // old one is spent (its token changes with the attempt). So does a pending
            // microdeposits verification the intent no longer asks for.
            let verificationChanged =
                stored.microdeposits != nil
                && (updated.options.verificationMethod != .microdeposits
                    || !updated.intent.paymentMethodTypes.contains(PaymentMethodType.usBankAccount.rawValue))
            let methodChanged = updated.intent.paymentMethod != stored.intent.paymentMethod || verificationChanged
            if updated.intent.status != .requiresAction || methodChanged {
                updated.intent.status = updated.intent.paymentMethod == nil ? .requiresPaymentMethod : .requiresConfirmation
            }
            if methodChanged {
                updated.attempt += 1
                updated.microdeposits = nil
            }
            try await repositories.setupIntents.update(updated)
            return Self.render(updated, secrets, publicURL)
        }
    }

    public func cancel(
        _ id: String, reason: CancellationReason?, by caller: Credential, request: RequestInfo
    ) async throws -> SetupIntent {
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        return try await database.transaction { repositories in
            guard let stored = try await repositories.setupIntents.find(id, account: caller.accountID, lock: true) else {
                throw PurseError.noSuch("setupintent", id, param: "intent", inPath: true)
            }
            try Self.requireOpen(stored, action: "cancel", caller: caller, secrets: secrets, publicURL: publicURL)
            var canceled = stored
            canceled.intent.status = .canceled
            canceled.intent.cancellationReason = reason?.rawValue
            try await repositories.setupIntents.update(canceled)
            let intent = Self.render(canceled, secrets, publicURL)
            try await repositories.events.record(
                NewEvent("setup_intent.canceled", object: try Self.eventObject(intent), account: caller.accountID, request: request)
            )
            return intent
        }
    }

    public func list(_ params: SetupIntentListParameters, by caller: Credential) async throws -> Page<SetupIntent> {
        let pagination = try params.pagination()
        let query = SetupIntentQuery(
            account: caller.accountID, customer: params.customer, paymentMethod: params.paymentMethod, created: params.created
        )
        let page = try await database.autocommit { try await $0.setupIntents.list(query, pagination: pagination) }
        return Page(data: page.data.map { Self.render($0, secrets, publicURL) }, hasMore: page.hasMore)
    }

    // MARK: - Confirm

    /// One transaction, from reading the intent to its new state and event: nothing another
    /// request does can slip between what the confirmation checked and what it writes.
    public func confirm(
        _ id: String, _ params: SetupIntentConfirmParameters, by caller: Credential, request: RequestInfo
    ) async throws -> SetupIntent {
        try Self.checkClientSecret(params.clientSecret, of: id, caller: caller, secrets: secrets)
        let returnURL = try ReturnURL.checked(params.returnURL)
        let factory = self.factory
        let processor = self.processor
        let secrets = self.secrets
        let publicURL = self.publicURL
        let settingsCache = caches.sheetSettings
        let linked = try await FinancialConnectionsService.linkedAccount(
            in: params.paymentMethodData, prefix: "payment_method_data", setupIntent: id, caller: caller, database: database
        )
        let new = try params.paymentMethodData.map {
            try factory.make($0, account: caller.accountID, prefix: "payment_method_data", linked: linked)
        }
        let outcome = try await database.transaction { repositories -> (SetupIntent, PurseError?) in
            guard var stored = try await repositories.setupIntents.find(id, account: caller.accountID, lock: true) else {
                throw PurseError.noSuch("setupintent", id, param: "intent", inPath: true)
            }
            try Self.requireOpen(stored, action: "confirm", caller: caller, secrets: secrets, publicURL: publicURL)
            if stored.microdeposits != nil {
                // A second confirmation would send new deposits and start the count of attempts again.
                throw PurseError(
                    .invalidRequest, code: "setup_intent_unexpected_state",
                    message: "You cannot confirm this SetupIntent because it waits for its microdeposits to be verified: "
                        + "verify them, or cancel it.",
                    related: JSONObject([("setup_intent", try Self.render(stored, secrets, publicURL).json(for: caller))])
                )
            }
            try stored.options.apply(params.paymentMethodOptions, confirming: true, byClient: caller.isClient)

            // The method to save: entered now, named by id or test token, or already on the intent.
            var candidate: Candidate
            if let new {
                candidate = Candidate(reference: new.processorReference, type: new.type, id: new.model.id, new: new)
            } else if let requested = params.paymentMethod ?? stored.intent.paymentMethod {
                if let token = try factory.make(token: requested, account: caller.accountID) {
                    candidate = Candidate(reference: token.processorReference, type: token.type, id: token.model.id, new: token)
                } else {
                    let found = try await Self.usablePaymentMethod(
                        requested, for: stored.intent.customer, caller: caller, factory: factory, in: repositories
                    )
                    candidate = Candidate(
                        reference: found.processorReference, type: found.type, id: found.model.id, new: nil, existing: found.model
                    )
                }
            } else {
                throw PurseError(
                    .invalidRequest, code: "parameter_missing",
                    message: "You cannot confirm this SetupIntent because it's missing a payment method. Give payment_method "
                        + "or payment_method_data.",
                    param: "payment_method"
                )
            }
            guard stored.intent.paymentMethodTypes.contains(candidate.type.rawValue) else {
                throw PurseError.invalidParameter(
                    params.paymentMethodData == nil ? "payment_method" : "payment_method_data[type]",
                    "The payment method type \(candidate.type.rawValue) is not allowed by this SetupIntent's "
                        + "payment_method_types (\(stored.intent.paymentMethodTypes.joined(separator: ", ")))."
                )
            }
            let mandate = try Self.mandate(params.mandateData, for: candidate.type, caller: caller, now: stored.now)
            let param = Self.methodParam(of: candidate.type, inline: params.paymentMethodData != nil)
            let saving = try candidate.model.map { try stored.options.saving($0, param: param) } ?? .now
            // A client's confirmation saves under the intent's sheet settings (spec §4).
            var settings: CustomerSheetSettings?
            if caller.isClient {
                let inForce = try await SheetSettingsService.inForce(
                    for: caller, named: stored.intent.customerSheetSettings, in: repositories, cache: settingsCache
                )
                settings = inForce
                try candidate.enforce(inForce, inline: params.paymentMethodData != nil)
            }
            var decision = await processor.decide(reference: candidate.reference, type: candidate.type, at: .setup)
            if decision == .approved, candidate.type == .card, stored.options.requestThreeDSecure != .automatic {
                decision = .requiresAuthentication
            }
            if let new = candidate.new { try await repositories.paymentMethods.insert(new, account: caller.accountID, customer: nil) }
            if let billing = candidate.updatedBillingDetails, var existing = candidate.existing {
                existing.billingDetails = billing
                try await repositories.paymentMethods.update(existing, account: caller.accountID)
            }
            let transition = Transition(
                stored: stored, request: request, secrets: secrets, publicURL: publicURL, settings: settings, repositories: repositories
            )
            switch decision {
            case .approved where saving == .afterMicrodeposits:
                let intent = try await transition.requireAction(
                    paymentMethod: candidate.id, mandate: mandate, returnURL: returnURL, microdeposits: .sent(now: stored.now)
                )
                return (intent, nil)
            case .approved:
                return (try await transition.succeed(paymentMethod: candidate.id, mandate: mandate, returnURL: returnURL), nil)
            case .requiresAuthentication:
                return (try await transition.requireAction(paymentMethod: candidate.id, mandate: mandate, returnURL: returnURL), nil)
            case .declined, .unusable:
                guard let refusal = decision.refusal else { throw PurseError(.invalidRequest, message: "The payment method was refused.") }
                let intent = try await transition.fail(
                    paymentMethod: candidate.id, error: refusal, type: refusal.category == .card ? "card_error" : "invalid_request_error"
                )
                return (intent, refusal)
            }
        }
        guard var refusal = outcome.1 else { return outcome.0 }
        // The failure is kept (last_setup_error, its event): a retry with the same key replays it.
        refusal.related["setup_intent"] = try outcome.0.json(for: caller)
        refusal.isExecutionOutcome = true
        throw refusal
    }

    /// The 3D Secure page's verdict: the customer completed or failed authentication. Returns
    /// the intent and where to send the customer back to.
    public func completeAuthentication(
        _ id: String, token: String, succeeded: Bool, request: RequestInfo
    ) async throws -> (intent: SetupIntent, returnURL: String?) {
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        return try await database.transaction { repositories in
            guard let stored = try await repositories.setupIntents.find(id, account: nil, lock: true),
                secrets.isAuthenticationToken(token, setupIntent: id, attempt: stored.attempt)
            else { throw PurseError.noSuch("authentication page", id) }
            guard stored.intent.status == .requiresAction, let method = stored.intent.paymentMethod else {
                return (Self.render(stored, secrets, publicURL), stored.returnURL)  // already decided
            }
            let settings = try await Self.confirmationSettings(of: stored, in: repositories)
            let transition = Transition(
                stored: stored, request: request, secrets: secrets, publicURL: publicURL, settings: settings, repositories: repositories
            )
            let intent: SetupIntent
            if succeeded {
                intent = try await transition.succeed(paymentMethod: method, mandate: nil, returnURL: nil)
            } else {
                let failure = PurseError(
                    .invalidRequest, code: "setup_intent_authentication_failure",
                    message: "The latest attempt to set up the payment method has failed because authentication failed."
                )
                intent = try await transition.fail(paymentMethod: method, error: failure, type: "invalid_request_error")
            }
            return (intent, stored.returnURL)
        }
    }

    /// What the authentication page shows: the intent and its card, when the token is right.
    public func authenticationPage(_ id: String, token: String) async throws -> (intent: SetupIntent, method: PaymentMethod?) {
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        return try await database.autocommit { repositories in
            guard let stored = try await repositories.setupIntents.find(id, account: nil, lock: false),
                secrets.isAuthenticationToken(token, setupIntent: id, attempt: stored.attempt)
            else { throw PurseError.noSuch("authentication page", id) }
            var method: PaymentMethod?
            if let id = stored.intent.paymentMethod {
                method = try await repositories.paymentMethods.find(id, visibleTo: Visibility(account: stored.accountID), lock: false)?.model
            }
            return (Self.render(stored, secrets, publicURL), method)
        }
    }

    // MARK: - Microdeposits

    /// `POST /v1/setup_intents/{id}/verify_microdeposits`: the amounts or code the customer read
    /// on their statement.
    public func verifyMicrodeposits(
        _ id: String, _ params: SetupIntentVerifyMicrodepositsParameters, by caller: Credential, request: RequestInfo
    ) async throws -> SetupIntent {
        try Self.checkClientSecret(params.clientSecret, of: id, caller: caller, secrets: secrets)
        return try await verify(id, account: caller.accountID, pageToken: nil, proof: try params.proof(), viewer: caller, request: request)
    }

    /// The hosted verification page's form: its token stands for the client secret.
    public func verifyMicrodeposits(
        _ id: String, pageToken: String, _ params: SetupIntentVerifyMicrodepositsParameters, request: RequestInfo
    ) async throws -> SetupIntent {
        try await verify(id, account: nil, pageToken: pageToken, proof: try params.proof(), viewer: nil, request: request)
    }

    /// What the hosted verification page shows: the intent its token was made for.
    public func microdepositsPage(_ id: String, token: String) async throws -> SetupIntent {
        let (secrets, publicURL) = (self.secrets, self.publicURL)
        return try await database.autocommit { repositories in
            guard let stored = try await repositories.setupIntents.find(id, account: nil, lock: false),
                secrets.isMicrodepositsPageToken(token, setupIntent: id, attempt: stored.attempt)
            else { throw PurseError.noSuch("verification page", id) }
            return Self.render(stored, secrets, publicURL)
        }
    }

    /// Verifies the deposits of an intent waiting for them, in one transaction: verified saves the
    /// method as a confirmation would; a wrong reading counts against the attempts left; too many,
    /// or too late, fails the intent as a decline does. `pageToken` is the hosted page's.
    private func verify(
        _ id: String, account: String?, pageToken: String?, proof: MicrodepositProof, viewer: Credential?, request: RequestInfo
    ) async throws -> SetupIntent {
        let (secrets, publicURL, processor) = (self.secrets, self.publicURL, self.processor)
        let outcome = try await database.transaction { repositories -> (SetupIntent, PurseError?) in
            // The page answers alike for a missing intent and a wrong token.
            let missing =
                pageToken == nil ? PurseError.noSuch("setupintent", id, param: "intent", inPath: true) : .noSuch("verification page", id)
            guard var stored = try await repositories.setupIntents.find(id, account: account, lock: true) else { throw missing }
            if let pageToken, !secrets.isMicrodepositsPageToken(pageToken, setupIntent: id, attempt: stored.attempt) { throw missing }
            guard stored.intent.status == .requiresAction, var pending = stored.microdeposits, let method = stored.intent.paymentMethod
            else {
                throw PurseError(
                    .invalidRequest, code: "setup_intent_unexpected_state",
                    message: "This SetupIntent has no microdeposits to verify: its status is \(stored.intent.status).",
                    related: JSONObject([("setup_intent", try Self.render(stored, secrets, publicURL).json(for: viewer))])
                )
            }
            var verdict = await processor.verifyMicrodeposits(proof)
            if verdict == .mismatch {
                pending.failedAttempts += 1
                if pending.failedAttempts >= PendingMicrodeposits.maximumFailedAttempts { verdict = .attemptsExceeded }
            }
            let transition = Transition(
                stored: stored, request: request, secrets: secrets, publicURL: publicURL,
                settings: try await Self.confirmationSettings(of: stored, in: repositories), repositories: repositories
            )
            switch verdict {
            case .verified:
                return (try await transition.succeed(paymentMethod: method, mandate: nil, returnURL: nil), nil)
            case .mismatch:
                stored.microdeposits = pending
                try await repositories.setupIntents.update(stored)
                let left = PendingMicrodeposits.maximumFailedAttempts - pending.failedAttempts
                let mismatch =
                    if case .amounts = proof {
                        PurseError(
                            .invalidRequest, code: "payment_method_microdeposit_verification_amounts_mismatch",
                            message: "The amounts provided do not match the amounts that were sent to the bank account. "
                                + "You have \(left) verification attempts remaining.",
                            param: "amounts"
                        )
                    } else {
                        PurseError(
                            .invalidRequest, code: "payment_method_microdeposit_verification_descriptor_code_mismatch",
                            message: "The verification code provided does not match the code in the deposit's statement "
                                + "descriptor. You have \(left) verification attempts remaining.",
                            param: "descriptor_code"
                        )
                    }
                return (Self.render(stored, secrets, publicURL), mismatch)
            case .attemptsExceeded, .timedOut:
                let failure =
                    verdict == .timedOut
                    ? Self.microdepositsTimedOut
                    : PurseError(
                        .invalidRequest, code: "payment_method_microdeposit_verification_attempts_exceeded",
                        message: "You have exceeded the number of allowed verification attempts."
                    )
                return (try await transition.fail(paymentMethod: method, error: failure, type: "invalid_request_error"), failure)
            }
        }
        guard var refusal = outcome.1 else { return outcome.0 }
        // Kept (the attempt counted, or the failure recorded): a retry with the same key replays it.
        refusal.related["setup_intent"] = try outcome.0.json(for: viewer)
        refusal.isExecutionOutcome = true
        throw refusal
    }

    /// Cancels intents left waiting for a payment method or an authentication for a day
    /// (`cancellation_reason: abandoned`), and fails those whose microdeposits were not verified
    /// in Stripe's ten days (`payment_method_microdeposit_verification_timeout`, as a reading of
    /// `SM44DD` does), of every customer on no test clock; returns how many it moved.
    public func sweepAbandoned() async throws -> Int {
        try await database.transaction { try await self.lapse(.wallClock, in: $0) }
    }

    /// The same for the intents of `timeline`, in the caller's transaction: a test clock's
    /// advance runs it at the clock's new time, so what waited too long has ended once it is ready.
    public func lapse(_ timeline: SetupIntentTimeline, in repositories: Repositories) async throws -> Int {
        if case .testClock(let clock, let account, let time) = timeline {
            try await repositories.setupIntents.stampClockTime(clock: clock, account: account, time: time)
        }
        let unverified = try await repositories.setupIntents.lockMicrodepositsSent(
            daysAgo: PendingMicrodeposits.verificationDays, on: timeline
        )
        for stored in unverified {
            guard let method = stored.intent.paymentMethod else { continue }
            let transition = Transition(
                stored: stored, request: nil, secrets: secrets, publicURL: publicURL,
                settings: try await Self.confirmationSettings(of: stored, in: repositories), repositories: repositories
            )
            _ = try await transition.fail(paymentMethod: method, error: Self.microdepositsTimedOut, type: "invalid_request_error")
        }
        let canceled = try await repositories.setupIntents.cancelAbandoned(idleSeconds: Self.abandonedAfter, on: timeline)
        for stored in canceled {
            try await repositories.events.record(
                NewEvent(
                    "setup_intent.canceled", object: try Self.eventObject(Self.render(stored, secrets, publicURL)),
                    account: stored.accountID, request: nil
                )
            )
        }
        return unverified.count + canceled.count
    }

    /// How long an intent may wait for a payment method or an authentication, in seconds.
    static let abandonedAfter = 86_400

    // MARK: - Internals

    /// With `confirm=true` a refusal must change nothing, so what the confirmation would refuse
    /// before reaching the processor (no method, a type not allowed, a missing mandate, a method
    /// the options do not allow) is checked before the intent is stored.
    private func checkConfirmable(
        _ params: SetupIntentCreateParameters, types: [PaymentMethodType], options: SetupIntentOptions, newMethod: NewPaymentMethod?,
        caller: Credential
    ) async throws {
        let method: PaymentMethod
        if let newMethod {
            method = newMethod.model
        } else if let requested = params.paymentMethod {
            if let token = try factory.make(token: requested, account: caller.accountID) {
                method = token.model
            } else {
                let account = Visibility(account: caller.accountID)
                let found = try await database.autocommit { try await $0.paymentMethods.find(requested, visibleTo: account, lock: false) }
                guard let found else { throw PurseError.noSuch("PaymentMethod", requested, param: "payment_method") }
                method = found.model
            }
        } else {
            throw PurseError(
                .invalidRequest, code: "parameter_missing",
                message: "confirm=true needs a payment method: give payment_method or payment_method_data.",
                param: "payment_method"
            )
        }
        guard let type = PaymentMethodType(rawValue: method.type), types.contains(type) else {
            throw PurseError.invalidParameter(
                params.paymentMethodData == nil ? "payment_method" : "payment_method_data[type]",
                "The payment method type \(method.type) is not allowed by this SetupIntent's payment_method_types."
            )
        }
        _ = try Self.mandate(params.mandateData, for: type, caller: caller)
        _ = try options.saving(method, param: Self.methodParam(of: type, inline: newMethod != nil))
    }

    /// The parameter a confirmation's payment method came from, for the errors about it.
    static func methodParam(of type: PaymentMethodType, inline: Bool) -> String {
        inline ? "payment_method_data[\(type.rawValue)]" : "payment_method"
    }

    struct Candidate: Sendable {
        let reference: String
        let type: PaymentMethodType
        let id: String
        var new: NewPaymentMethod?
        /// The saved method the confirmation names, when it names one.
        let existing: PaymentMethod?
        /// A saved method's billing details once the settings attached their defaults.
        var updatedBillingDetails: BillingDetails?

        /// The method as it stands: the new one, or the saved one named.
        var model: PaymentMethod? { new?.model ?? existing }

        init(reference: String, type: PaymentMethodType, id: String, new: NewPaymentMethod?, existing: PaymentMethod? = nil) {
            self.reference = reference
            self.type = type
            self.id = id
            self.new = new
            self.existing = existing
        }

        /// Applies the sheet settings' rules to the method about to be saved.
        mutating func enforce(_ settings: CustomerSheetSettings, inline: Bool) throws {
            let billing = inline ? "payment_method_data[billing_details]" : "payment_method"
            let type = inline ? "payment_method_data[type]" : "payment_method"
            if var new {
                new.model = try SheetRules.enforce(settings, on: new.model, billingParam: billing, typeParam: type)
                self.new = new
            } else if let existing {
                // A saved method named by id: its fault is the `payment_method` parameter as a whole.
                do {
                    let checked = try SheetRules.enforce(settings, on: existing, billingParam: billing, typeParam: type)
                    if checked.billingDetails != existing.billingDetails { updatedBillingDetails = checked.billingDetails }
                } catch var error as PurseError {
                    error.param = "payment_method"
                    throw error
                }
            }
        }
    }

    static let microdepositsTimedOut = PurseError(
        .invalidRequest, code: "payment_method_microdeposit_verification_timeout",
        message: "The bank account was not verified with microdeposits within the required period."
    )

    /// The sheet settings a client's pending confirmation finishes under (its key's own, say);
    /// nil for the secret key's, which is never restricted.
    static func confirmationSettings(of stored: StoredSetupIntent, in repositories: Repositories) async throws -> CustomerSheetSettings? {
        guard stored.confirmedByClient else { return nil }
        let owner = Credential(kind: .publishable, accountID: stored.accountID, sourceID: "pending-confirmation")
        return try await SheetSettingsService.inForce(for: owner, named: stored.confirmationSettingsID, in: repositories)
    }

    /// A publishable key must bring the intent's client secret; the secret key need not.
    static func checkClientSecret(_ clientSecret: String?, of id: String, caller: Credential, secrets: DerivedSecrets) throws {
        guard caller.kind == .publishable else { return }
        guard let clientSecret else { throw PurseError.missingParameter("client_secret") }
        guard secrets.isSetupIntentClientSecret(clientSecret, of: id) else {
            throw PurseError.invalidParameter(
                "client_secret", "The client_secret provided does not match the client_secret associated with the SetupIntent."
            )
        }
    }

    /// Refuses to act on a succeeded or canceled intent; the error embeds the intent as the caller
    /// may see it, as Stripe's does (and as a decline's does).
    static func requireOpen(
        _ stored: StoredSetupIntent, action: String, caller: Credential, secrets: DerivedSecrets, publicURL: PublicURL
    ) throws {
        let intent = stored.intent
        guard intent.status.isOpen else {
            throw PurseError(
                .invalidRequest, code: "setup_intent_unexpected_state",
                message: "You cannot \(action) this SetupIntent because it has a status of \(intent.status).",
                related: JSONObject([("setup_intent", try render(stored, secrets, publicURL).json(for: caller))])
            )
        }
    }

    static func types(
        _ requested: [PaymentMethodType]?, automatic: AutomaticPaymentMethodsParameters?
    ) throws -> [PaymentMethodType] {
        if let requested {
            guard !requested.isEmpty else {
                throw PurseError.invalidParameter("payment_method_types", "Give at least one payment method type.")
            }
            return requested.distinct
        }
        return automatic?.enabled == true ? PaymentMethodType.allCases : [.card]
    }

    /// A payment method a setup intent may use: unattached, or attached to the intent's customer;
    /// a test token becomes a new one.
    static func usablePaymentMethod(
        _ id: String, for customer: String?, caller: Credential, factory: PaymentMethodFactory, in repositories: Repositories
    ) async throws -> StoredPaymentMethod {
        if let token = try factory.make(token: id, account: caller.accountID) {
            try await repositories.paymentMethods.insert(token, account: caller.accountID, customer: nil)
            return StoredPaymentMethod(model: token.model, state: .unattached, processorReference: token.processorReference, type: token.type)
        }
        guard let found = try await repositories.paymentMethods.find(id, visibleTo: Visibility(account: caller.accountID), lock: false)
        else {
            throw PurseError.noSuch("PaymentMethod", id, param: "payment_method")
        }
        if found.state == .attached, found.model.customer == customer, customer != nil { return found }
        try Attachments.checkAttachable(found, caller: caller)
        return found
    }

    /// The mandate a bank debit needs, accepted `now`; nil for cards.
    static func mandate(
        _ data: MandateDataParameters?, for type: PaymentMethodType, caller: Credential, now: Int = Clock.now
    ) throws -> JSONValue? {
        guard type != .card else { return nil }
        guard let data else { throw PurseError.missingParameter("mandate_data") }
        let acceptance = data.customerAcceptance
        if acceptance.type == .online {
            let online = acceptance.online
            let inferred = online?.inferFromClient == true && caller.kind == .publishable
            guard inferred || (online?.ipAddress != nil && online?.userAgent != nil) else {
                throw PurseError.invalidParameter(
                    "mandate_data[customer_acceptance][online]",
                    "An online acceptance needs ip_address and user_agent (or infer_from_client with a publishable key)."
                )
            }
        }
        return data.record(id: ObjectID.make(.mandate), now: now)
    }

    static func render(_ stored: StoredSetupIntent, _ secrets: DerivedSecrets, _ publicURL: PublicURL) -> SetupIntent {
        var intent = stored.intent
        intent.clientSecret = secrets.setupIntentClientSecret(intent.id)
        intent.paymentMethodOptions = stored.options.json(for: intent.paymentMethodTypes)
        if intent.status == .requiresAction {
            // Each attempt's page has a token of its own: one an update or new confirmation replaced is spent.
            if let microdeposits = stored.microdeposits {
                let token = secrets.microdepositsPageToken(setupIntent: intent.id, attempt: stored.attempt)
                intent.nextAction = .microdeposits(
                    arrivalDate: microdeposits.arrivalDate,
                    hostedVerificationURL: "\(publicURL.base)/v1/setup_intents/\(intent.id)/verify_microdeposits/\(token)"
                )
            } else {
                let token = secrets.authenticationToken(setupIntent: intent.id, attempt: stored.attempt)
                intent.nextAction = .redirect(
                    url: "\(publicURL.base)/v1/setup_intents/\(intent.id)/authenticate/\(token)", returnURL: stored.returnURL
                )
            }
        }
        return intent
    }

    /// The object for an event: never with the client secret or a page's address, derived again when shown.
    static func eventObject(_ intent: SetupIntent) throws -> JSONValue {
        var object = try JSONValueEncoder().encode(intent)
        object["client_secret"] = .null
        guard let action = intent.nextAction else { return object }
        // The pages' addresses carry their tokens: a webhook shows what is awaited, and the
        // merchant retrieves the intent for the address.
        var shown = JSONObject([("type", .string(action.type))])
        if let microdeposits = action.verifyWithMicrodeposits {
            shown["verify_with_microdeposits"] = [
                "arrival_date": .int(microdeposits.arrivalDate), "microdeposit_type": .string(microdeposits.microdepositType),
            ]
        }
        object["next_action"] = .object(shown)
        return object
    }
}
