public import Postgres
public import PurseModels

/// Payment methods: create (tokenize), retrieve, update, list, attach, detach.
public struct PaymentMethodService: Sendable {
    private let pool: PostgresClient
    private let processor: any Processor
    private let factory: PaymentMethodFactory
    private let events = EventRecorder()
    private let caches: ChangeCaches

    /// The most payment methods one customer may have attached.
    public static let maximumPerCustomer = 500

    public init(pool: PostgresClient, processor: any Processor, masterKey: MasterKey, caches: ChangeCaches) {
        self.pool = pool
        self.caches = caches
        self.processor = processor
        self.factory = PaymentMethodFactory(processor: processor, fingerprinter: Fingerprinter(masterKey: masterKey))
    }

    /// Checks and stores a new, unattached payment method. Nothing of the number is kept.
    /// With a client credential, the sheet settings in force decide what may be saved (spec §4).
    public func create(_ params: PaymentMethodCreateParameters, by caller: Credential) async throws -> PaymentMethod {
        var method = try factory.make(params, account: caller.accountID)
        if caller.isClient {
            let settings = try await SheetSettingsService.inForce(
                for: caller, named: nil, database: PostgresDatabase(pool: pool), cache: caches.sheetSettings
            )
            method.model = try SheetRules.enforce(settings, on: method.model, billingParam: "billing_details", typeParam: "type")
        }
        try await pool.query(PaymentMethodStore.insert(method, account: caller.accountID))
        return method.model
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> PaymentMethod {
        let found = try await PaymentMethodStore.find(id, by: caller, pool: pool)
        guard let found else { throw PurseError.noSuch("PaymentMethod", id, param: "id") }
        return found.model
    }

    /// A payment method of one customer (`GET /v1/customers/{id}/payment_methods/{pm}`).
    public func retrieve(_ id: String, customer: String, by caller: Credential) async throws -> PaymentMethod {
        let method = try await retrieve(id, by: caller)
        guard method.customer == customer, try await CustomerVisibility.isVisible(customer, by: caller, pool: pool) else {
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
        // The customer's visibility is part of the page's own statement; only an empty page needs
        // a second one to tell "no methods" from "no such customer".
        var filter: PostgresQuery = """
            account_id = \(caller.accountID) AND customer_id = \(customer) AND state = 'attached'
              AND EXISTS (SELECT 1 FROM customers WHERE id = \(customer) AND \(CustomerService.scope(caller)) AND NOT deleted)
            """
        if let type = params.type { filter.append(" AND type = \(type.rawValue)") }
        if let redisplay = params.allowRedisplay { filter.append(" AND allow_redisplay = \(redisplay.rawValue)") }
        if caller.isClient {
            // What a client lists is filtered by the sheet settings in force; the secret key sees all.
            let settings = try await SheetSettingsService.inForce(
                for: caller, named: nil, database: PostgresDatabase(pool: pool), cache: caches.sheetSettings
            )
            filter.append(" AND \(settings.savedPaymentMethodFilter.condition(now: Clock.now))")
        }
        let condition = filter
        guard pagination.cursor != nil else {
            // The usual call, a first page, is one statement.
            let page = try await PaymentMethodStore.list.firstPage(
                pool: pool, where: condition, limit: pagination.limit, decode: PaymentMethodStore.rendered
            )
            if page.data.isEmpty, !(try await CustomerVisibility.isVisible(customer, by: caller, pool: pool)) {
                throw PurseError.noSuch("customer", customer, param: customerParam)
            }
            return page
        }
        return try await pool.withConnection { connection in
            // An unknown customer is named before an unknown cursor.
            guard try await CustomerVisibility.isVisible(customer, by: caller, on: connection) else {
                throw PurseError.noSuch("customer", customer, param: customerParam)
            }
            return try await PaymentMethodStore.list.page(
                on: connection, where: condition, pagination: pagination, decode: PaymentMethodStore.rendered
            )
        }
    }

    /// What a sheet shows of a customer: the attached methods whose `allow_redisplay` is one of
    /// `allowRedisplay`, or that are the device's own default (`clientDefault`), through the sheet
    /// settings' filter (newest first, at most 100), and the default payment method.
    public func sheetMethods(
        customer: String, allowRedisplay: [String], alsoShowing clientDefault: String? = nil, settings: CustomerSheetSettings,
        by caller: Credential
    ) async throws -> (methods: [PaymentMethod], defaultMethod: String?) {
        let filter = settings.savedPaymentMethodFilter.condition(now: Clock.now)
        // One statement: a row per method (or one row without a method) for a live customer,
        // none for a missing one.
        let rows = try await pool.query(
            """
            SELECT c.default_payment_method, m.* FROM customers c
            LEFT JOIN LATERAL (
                SELECT \(unsafeSQL: PaymentMethodStore.columns), seq FROM payment_methods
                WHERE account_id = \(caller.accountID) AND customer_id = c.id AND state = 'attached'
                  AND (allow_redisplay = ANY(\(PostgresTextArray(allowRedisplay))) OR id = \(clientDefault ?? ""))
                  AND \(filter)
                ORDER BY created DESC, seq DESC LIMIT 100
            ) m ON true
            WHERE c.id = \(customer) AND c.account_id = \(caller.accountID) AND NOT c.deleted
            ORDER BY m.created DESC, m.seq DESC
            """
        )
        guard let first = rows.first else { throw PurseError.noSuch("customer", customer, param: "customer") }
        let methods = try rows.filter { try $0["id", as: String?.self] != nil }.map(PaymentMethodStore.paymentMethod)
        return (methods, try first["default_payment_method"])
    }

    public func update(
        _ id: String, _ params: PaymentMethodUpdateParameters, by caller: Credential, request: RequestInfo
    ) async throws -> PaymentMethod {
        let events = self.events
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            guard let stored = try await PaymentMethodStore.find(id, by: caller, lock: true, on: connection) else {
                throw PurseError.noSuch("PaymentMethod", id, param: "id")
            }
            guard stored.state == .attached else {
                throw PurseError(
                    .invalidRequest, code: "payment_method_unexpected_state",
                    message: "You must save this PaymentMethod to a customer before you can update it."
                )
            }
            let old = stored.model
            let new = try PaymentMethodUpdate.apply(params, to: old)
            guard new != old else { return old }
            let card = new.card
            let update: PostgresQuery = """
                UPDATE payment_methods
                SET billing_details = \(StoredJSON.encode(new.billingDetails)), allow_redisplay = \(new.allowRedisplay),
                    metadata = \(StoredJSON.encode(new.metadata)), details = \(PaymentMethodStore.details(of: new)),
                    card_exp_month = \(card.map { Int32($0.expMonth) }), card_exp_year = \(card.map { Int32($0.expYear) })
                WHERE id = \(id) AND account_id = \(caller.accountID)
                """
            let encoder = JSONValueEncoder()
            let before = try encoder.encode(old)
            let after = try encoder.encode(new)
            try await events.record(
                "payment_method.updated", object: after,
                previousAttributes: AttributeDiff.previousAttributes(from: before, to: after),
                account: caller.accountID, request: request, with: update, on: connection
            )
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
        let events = self.events
        let settingsCache = caches.sheetSettings
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            let owner = try await CustomerService.lockActive(customer, by: caller, on: connection, param: "customer")
            if let new = prepared.new { try connection.queryLater(PaymentMethodStore.insert(new, account: caller.accountID)) }
            if caller.isClient,
                let saved = try await DuplicateCards.reuse(
                    prepared.id, for: owner.id,
                    settings: try SheetSettingsService.inForce(for: caller, in: PostgresDatabase.repositories(on: connection), cache: settingsCache),
                    caller: caller, request: request, events: events, on: connection
                )
            {
                return saved
            }
            let attached = try await Self.attach(prepared.id, to: owner.id, caller: caller, on: connection)
            if attached.changed {
                try await events.record(
                    "payment_method.attached", object: try JSONValueEncoder().encode(attached.method),
                    account: caller.accountID, request: request, on: connection
                )
            }
            return attached.method
        }
    }

    /// Attaches `id` to the locked customer `customer`. Not changed when it already was.
    static func attach(
        _ id: String, to customer: String, caller: Credential, on connection: isolated PostgresConnection
    ) async throws -> (method: PaymentMethod, changed: Bool) {
        // The count is taken under the customer's row lock, which every attach holds, so two
        // attaches cannot both pass the limit.
        let updated = try await connection.query(
            """
            UPDATE payment_methods SET state = 'attached', customer_id = \(customer)
            WHERE id = \(id) AND account_id = \(caller.accountID) AND state = 'unattached'
              AND (SELECT count(*) FROM payment_methods
                   WHERE account_id = \(caller.accountID) AND customer_id = \(customer) AND state = 'attached')
                  < \(maximumPerCustomer)
            RETURNING \(unsafeSQL: PaymentMethodStore.columns)
            """
        )
        if let row = updated.first { return (try PaymentMethodStore.paymentMethod(row), true) }
        let owner = Credential(kind: .secret, accountID: caller.accountID, sourceID: caller.sourceID)
        guard let current = try await PaymentMethodStore.find(id, by: owner, on: connection) else {
            throw PurseError.noSuch("PaymentMethod", id, param: "id")
        }
        if current.state == .attached, current.model.customer == customer { return (current.model, false) }
        try checkAttachable(current, caller: caller)
        throw PurseError(
            .invalidRequest, code: "customer_max_payment_methods",
            message: "The customer already has the maximum of \(maximumPerCustomer) attached payment methods."
        )
    }

    /// Refuses methods that cannot be attached: attached elsewhere, or detached for good.
    static func checkAttachable(_ method: StoredPaymentMethod, caller: Credential) throws {
        switch method.state {
        case .unattached:
            return
        case .attached where caller.customerID != nil && method.model.customer != caller.customerID:
            // A customer's credential must not learn that another customer's method exists.
            throw PurseError.noSuch("PaymentMethod", method.model.id, param: "id")
        case .attached:
            throw PurseError(
                .invalidRequest, code: "payment_method_unexpected_state",
                message: "The payment method you provided has already been attached to a customer.",
                param: "payment_method"
            )
        case .detached:
            throw PurseError(
                .invalidRequest, code: "payment_method_unexpected_state",
                message: "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, "
                    + "shared with a connected account without Customer attachment, or was detached from a Customer. "
                    + "It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
                param: "payment_method"
            )
        }
    }

    /// Detaches a payment method for good. When it was the customer's default (or selected
    /// option), that is cleared in the same transaction.
    public func detach(_ id: String, by caller: Credential, request: RequestInfo) async throws -> PaymentMethod {
        let events = self.events
        // One trip to the pool: the method is looked up in the transaction that detaches it.
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            guard let found = try await PaymentMethodStore.find(id, by: caller, on: connection) else {
                throw PurseError.noSuch("PaymentMethod", id, param: "id")
            }
            guard found.state == .attached, let customer = found.model.customer else {
                throw PurseError(
                    .invalidRequest, code: "payment_method_unexpected_state",
                    message: "The payment method you provided is not attached to a customer so detachment is impossible.",
                    param: "payment_method"
                )
            }
            if let session = caller.session, !session.canRemove {
                throw PurseError(
                    .permission, code: "customer_session_remove_disabled",
                    message: "This customer session does not allow removing payment methods (its payment_method_remove feature is disabled)."
                )
            }
            // The customer's lock before any change, as every change to a customer's methods takes it.
            let owner = try await CustomerService.lockActive(customer, by: caller, on: connection)
            if let session = caller.session, !session.canRemoveLast {
                let remaining = try await connection.query(
                    """
                    SELECT count(*) AS n FROM payment_methods
                    WHERE account_id = \(caller.accountID) AND customer_id = \(owner.id) AND state = 'attached'
                    """
                )
                guard try remaining[0]["n", as: Int.self] > 1 else {
                    throw PurseError(
                        .permission, code: "customer_session_remove_last_disabled",
                        message: "This customer session does not allow removing the last payment method (payment_method_remove_last is disabled)."
                    )
                }
            }
            let detached = try await connection.query(
                """
                UPDATE payment_methods SET state = 'detached', customer_id = NULL
                WHERE id = \(id) AND account_id = \(caller.accountID) AND customer_id = \(owner.id) AND state = 'attached'
                RETURNING \(unsafeSQL: PaymentMethodStore.columns)
                """
            )
            guard let row = detached.first else {
                throw PurseError(
                    .invalidRequest, code: "payment_method_unexpected_state",
                    message: "The payment method you provided is not attached to a customer so detachment is impossible.",
                    param: "payment_method"
                )
            }
            try await DefaultPaymentMethod.clearIfDefault(id, of: owner, caller: caller, request: request, events: events, on: connection)
            let method = try PaymentMethodStore.paymentMethod(row)
            try await events.record(
                "payment_method.detached", object: try JSONValueEncoder().encode(method),
                previousAttributes: ["customer": .string(owner.id)], account: caller.accountID, request: request,
                on: connection
            )
            return method
        }
    }

    /// Resolves `id` for attaching to `customer`: a test token becomes a new payment method, an
    /// id is looked up; either way the processor's card check runs first. A method already
    /// attached to `customer` is returned as it is.
    func prepareForAttach(
        _ id: String, to customer: String, caller: Credential, param: String
    ) async throws -> AttachPreparation {
        let reference: String
        let type: PaymentMethodType
        let prepared: PreparedAttachment
        if let token = try factory.make(token: id, account: caller.accountID) {
            (reference, type, prepared) = (token.processorReference, token.type, PreparedAttachment(id: token.model.id, new: token))
        } else {
            // A customer's credential may attach any unattached method of its account to itself.
            let owner = Credential(kind: .secret, accountID: caller.accountID, sourceID: caller.sourceID)
            guard let found = try await PaymentMethodStore.find(id, by: owner, pool: pool) else {
                throw PurseError.noSuch("PaymentMethod", id, param: param)
            }
            if found.state == .attached, found.model.customer == customer { return .alreadyAttached(found.model) }
            try Self.checkAttachable(found, caller: caller)
            (reference, type, prepared) = (found.processorReference, found.type, PreparedAttachment(id: id, new: nil))
        }
        if let refusal = await processor.decide(reference: reference, type: type, at: .attach).refusal {
            throw refusal
        }
        return .ready(prepared)
    }
}

/// What attaching needs done inside the transaction, if anything.
enum AttachPreparation: Sendable {
    case alreadyAttached(PaymentMethod)
    case ready(PreparedAttachment)
}

/// A payment method checked and ready to attach inside a transaction.
struct PreparedAttachment: Sendable {
    let id: String
    /// The method a test token stands for, to insert first.
    let new: NewPaymentMethod?
}

extension ProcessorDecision {
    /// The error a refusal becomes; nil when approved.
    var refusal: PurseError? {
        switch self {
        case .approved:
            return nil
        case .declined(let code, let declineCode, let message):
            return PurseError(.card, code: code, message: message, declineCode: declineCode)
        case .requiresAuthentication:
            return PurseError(
                .card, code: "authentication_required",
                message: "This card requires authentication: save it with a SetupIntent instead.",
                declineCode: "authentication_required"
            )
        case .unusable(_, let message):
            return PurseError(.invalidRequest, code: "bank_account_unusable", message: message, param: "payment_method")
        }
    }
}
