public import PurseModels

/// Payment methods: create (tokenize), retrieve, update, list, attach, detach.
public struct PaymentMethodService: Sendable {
    private let database: any Database
    private let processor: any Processor
    private let factory: PaymentMethodFactory
    private let caches: ChangeCaches

    public init(database: any Database, processor: any Processor, masterKey: MasterKey, caches: ChangeCaches) {
        self.database = database
        self.caches = caches
        self.processor = processor
        self.factory = PaymentMethodFactory(processor: processor, fingerprinter: Fingerprinter(masterKey: masterKey))
    }

    /// Checks and stores a new, unattached payment method. Nothing of the number is kept.
    /// With a client credential, the sheet settings in force decide what may be saved (spec §4).
    public func create(_ params: PaymentMethodCreateParameters, by caller: Credential) async throws -> PaymentMethod {
        let linked = try await FinancialConnectionsService.linkedAccount(
            in: params, prefix: nil, setupIntent: nil, caller: caller, database: database
        )
        var method = try factory.make(params, account: caller.accountID, linked: linked)
        if caller.isClient {
            let settings = try await SheetSettingsService.inForce(
                for: caller, named: nil, database: database, cache: caches.sheetSettings
            ).settings
            method.model = try SheetRules.enforce(settings, on: method.model, billingParam: "billing_details", typeParam: "type")
        }
        let new = method
        try await database.autocommit { try await $0.paymentMethods.insert(new, account: caller.accountID, customer: nil) }
        return method.model
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> PaymentMethod {
        let found = try await database.autocommit { try await $0.paymentMethods.find(id, visibleTo: caller.visibility, lock: false) }
        guard let found else { throw PurseError.noSuch("PaymentMethod", id, param: "id") }
        return found.model
    }

    /// A payment method of one customer (`GET /v1/customers/{id}/payment_methods/{pm}`).
    public func retrieve(_ id: String, customer: String, by caller: Credential) async throws -> PaymentMethod {
        let method = try await retrieve(id, by: caller)
        guard method.customer == customer,
            try await database.autocommit({ try await $0.customers.isLive(customer, visibleTo: caller.visibility) })
        else {
            throw PurseError.noSuch("PaymentMethod", id, param: "id")
        }
        return method
    }

    /// A customer's attached methods, newest first, optionally of one type, each already written
    /// as its wire JSON (a list needs no model of them). `customerParam` names where the
    /// customer came from: `customer` (a parameter) or `id` (the path).
    public func list(
        _ params: PaymentMethodListParameters, by caller: Credential, customerParam: String = "customer"
    ) async throws -> Page<RenderedJSON> {
        guard let customer = params.customer else { throw PurseError.missingParameter("customer") }
        let pagination = try params.pagination()
        var filter: CustomerSheetSettings.SavedPaymentMethodFilter?
        if caller.isClient {
            // What a client lists is filtered by the sheet settings in force; the secret key sees all.
            let settings = try await SheetSettingsService.inForce(
                for: caller, named: nil, database: database, cache: caches.sheetSettings
            ).settings
            filter = settings.savedPaymentMethodFilter
        }
        let query = AttachedMethodsQuery(
            customer: customer, visibility: caller.visibility, type: params.type, allowRedisplay: params.allowRedisplay?.rawValue,
            filter: filter, now: caller.now
        )
        let page = try await database.autocommit { try await $0.paymentMethods.listAttached(query, pagination: pagination) }
        guard let page else { throw PurseError.noSuch("customer", customer, param: customerParam) }
        return page
    }

    /// What a sheet shows of a customer: the attached methods whose `allow_redisplay` is one of
    /// `allowRedisplay`, or that are the device's own default (`clientDefault`), through the sheet
    /// settings' filter (newest first, at most 100), and the default payment method.
    public func sheetMethods(
        customer: String, allowRedisplay: [String], alsoShowing clientDefault: String? = nil, settings: CustomerSheetSettings,
        by caller: Credential
    ) async throws -> (methods: [PaymentMethod], defaultMethod: String?) {
        let query = SheetMethodsQuery(
            customer: customer, account: caller.accountID, allowRedisplay: allowRedisplay, alsoShowing: clientDefault,
            filter: settings.savedPaymentMethodFilter, now: caller.now
        )
        let sheet = try await database.autocommit { try await $0.paymentMethods.sheet(query) }
        guard let sheet else { throw PurseError.noSuch("customer", customer, param: "customer") }
        return (sheet.methods, sheet.defaultMethod)
    }

    public func update(
        _ id: String, _ params: PaymentMethodUpdateParameters, by caller: Credential, request: RequestInfo
    ) async throws -> PaymentMethod {
        try await database.transaction(retryingConflicts: 2) { repositories in
            guard let stored = try await repositories.paymentMethods.find(id, visibleTo: caller.visibility, lock: true) else {
                throw PurseError.noSuch("PaymentMethod", id, param: "id")
            }
            guard stored.state == .attached else {
                throw PurseError(
                    .invalidRequest, code: "payment_method_unexpected_state",
                    message: "You must save this PaymentMethod to a customer before you can update it."
                )
            }
            let old = stored.model
            // An attached card's expiry is judged at its customer's time: its test clock's, if any.
            var now = Clock.now
            if let card = params.card, card.expMonth != nil || card.expYear != nil, let customer = old.customer {
                now = try await repositories.customers.clock(ofLive: customer, visibleTo: caller.visibility)?.time ?? now
            }
            let new = try PaymentMethodUpdate.apply(params, to: old, now: now)
            guard let event = try NewEvent("payment_method.updated", from: old, to: new, account: caller.accountID, request: request)
            else { return old }
            try await repositories.paymentMethods.update(new, account: caller.accountID)
            try await repositories.events.record(event)
            return new
        }
    }

    /// Attaches a payment method (or a test token such as `pm_card_visa`, which becomes a new
    /// payment method) to a customer, after the processor's card check.
    public func attach(
        _ id: String, to customer: String, by caller: Credential, request: RequestInfo
    ) async throws -> PaymentMethod {
        if let own = caller.customerID, own != customer {
            throw PurseError.noSuch("customer", customer, param: "customer")
        }
        let prepared: PreparedAttachment
        switch try await prepareForAttach(id, to: customer, caller: caller, param: "id") {
        case .alreadyAttached(let method): return method
        case .ready(let ready): prepared = ready
        }
        let settingsCache = caches.sheetSettings
        return try await database.transaction(retryingConflicts: 2) { repositories in
            let owner = try await CustomerAccess.lockLive(customer, by: caller, param: "customer", in: repositories)
            if let new = prepared.new { try await repositories.paymentMethods.insert(new, account: caller.accountID, customer: nil) }
            if caller.isClient,
                let saved = try await DuplicateCards.reuse(
                    prepared.id, for: owner.customer.id,
                    settings: try SheetSettingsService.inForce(for: caller, in: repositories, cache: settingsCache),
                    caller: caller, request: request, in: repositories
                )
            {
                return saved
            }
            let attached = try await Attachments.attach(prepared.id, to: owner.customer.id, caller: caller, in: repositories)
            if attached.changed {
                try await repositories.events.record(
                    NewEvent(
                        "payment_method.attached", object: try JSONValueEncoder().encode(attached.method), account: caller.accountID,
                        request: request
                    )
                )
            }
            return attached.method
        }
    }

    /// Detaches a payment method for good. When it was the customer's default (or selected
    /// option), that is cleared in the same transaction.
    public func detach(_ id: String, by caller: Credential, request: RequestInfo) async throws -> PaymentMethod {
        // One trip to the pool: the method is looked up in the transaction that detaches it.
        try await database.transaction(retryingConflicts: 2) { repositories in
            guard let found = try await repositories.paymentMethods.find(id, visibleTo: caller.visibility, lock: false) else {
                throw PurseError.noSuch("PaymentMethod", id, param: "id")
            }
            guard found.state == .attached, let customer = found.model.customer else { throw Self.notAttached }
            if let session = caller.session, !session.canRemove {
                throw PurseError(
                    .permission, code: "customer_session_remove_disabled",
                    message: "This customer session does not allow removing payment methods (its payment_method_remove feature is disabled)."
                )
            }
            // The customer's lock before any change, as every change to a customer's methods takes it.
            let owner = try await CustomerAccess.lockLive(customer, by: caller, in: repositories)
            if let session = caller.session, !session.canRemoveLast {
                guard try await repositories.paymentMethods.attachedCount(customer: customer, account: caller.accountID) > 1 else {
                    throw PurseError(
                        .permission, code: "customer_session_remove_last_disabled",
                        message: "This customer session does not allow removing the last payment method (payment_method_remove_last is disabled)."
                    )
                }
            }
            guard let method = try await repositories.paymentMethods.detach(id, from: customer, account: caller.accountID) else {
                throw Self.notAttached
            }
            try await DefaultPaymentMethod.clearIfDefault(id, of: owner, caller: caller, request: request, in: repositories)
            try await repositories.events.record(
                NewEvent(
                    "payment_method.detached", object: try JSONValueEncoder().encode(method),
                    previousAttributes: ["customer": .string(customer)], account: caller.accountID, request: request
                )
            )
            return method
        }
    }

    /// ``Attachments/prepare(_:to:caller:param:factory:processor:database:)`` with this service's
    /// processor: for creating a customer with a payment method.
    func prepareForAttach(_ id: String, to customer: String, caller: Credential, param: String) async throws -> AttachPreparation {
        try await Attachments.prepare(
            id, to: customer, caller: caller, param: param, factory: factory, processor: processor, database: database
        )
    }

    private static let notAttached = PurseError(
        .invalidRequest, code: "payment_method_unexpected_state",
        message: "The payment method you provided is not attached to a customer so detachment is impossible.",
        param: "payment_method"
    )
}
