public import PurseModels

/// Customers: create, retrieve, update, delete, list.
public struct CustomerService: Sendable {
    private let database: any Database
    private let paymentMethods: PaymentMethodService
    /// Emptied when a customer's keys stop working, before the response is sent.
    private let caches: ChangeCaches

    public init(database: any Database, paymentMethods: PaymentMethodService, caches: ChangeCaches) {
        self.database = database
        self.paymentMethods = paymentMethods
        self.caches = caches
    }

    /// A customer as found: live, or the stub a deleted one leaves.
    public enum Lookup: Sendable {
        case active(Customer)
        case deleted(DeletedObject)
    }

    /// Creates a customer; returns it as Stripe shows it, the same value its `customer.created`
    /// event carries (encoded once for both).
    public func create(
        _ params: CustomerCreateParameters,
        by caller: Credential,
        request: RequestInfo
    ) async throws -> RenderedJSON {
        var customer = Customer(
            id: ObjectID.make(.customer),
            created: Clock.now,
            address: try params.address?.address(param: "address"),
            description: try CustomerFieldRules.description(params.description),
            email: try CustomerFieldRules.email(params.email),
            invoicePrefix: ObjectID.randomBase62(length: 8).uppercased(),
            metadata: try MetadataRules.new(params.metadata),
            name: try CustomerFieldRules.name(params.name),
            phone: try CustomerFieldRules.phone(params.phone),
            preferredLocales: try CustomerFieldRules.locales(params.preferredLocales),
            shipping: try params.shipping?.shipping()
        )
        // `payment_method` attaches a method at creation; the default may only name that one.
        var attachment: PreparedAttachment?
        if let method = params.paymentMethod {
            switch try await paymentMethods.prepareForAttach(method, to: customer.id, caller: caller, param: "payment_method") {
            case .ready(let prepared): attachment = prepared
            case .alreadyAttached: throw PurseError.noSuch("PaymentMethod", method, param: "payment_method")
            }
        }
        if let requested = params.invoiceSettings?.defaultPaymentMethod?.value {
            guard requested == params.paymentMethod, let attachment else { throw Self.notAttached(requested) }
            customer.invoiceSettings.defaultPaymentMethod = attachment.id
        }
        let (prepared, preparedAttachment) = (customer, attachment)
        guard attachment != nil || params.testClock != nil else {
            // The common case in one statement: the customer and its event.
            let created = try Self.rendered(prepared)
            let event = NewEvent("customer.created", rendered: created, account: caller.accountID, request: request)
            try await database.autocommit { try await $0.customers.insert(prepared, account: caller.accountID, announcing: event) }
            return created
        }
        return try await database.transaction(retryingConflicts: 2) { repositories in
            var customer = prepared
            if let clockID = params.testClock {
                // A customer on a test clock is created at the clock's time, as Stripe's are.
                let clock = try await TestClockRules.clockForNewCustomer(clockID, account: caller.accountID, in: repositories)
                customer.created = clock.frozenTime
                customer.testClock = clock.id
            }
            let created = try Self.rendered(customer)
            // Nothing reads these rows: they travel with the next statement in one round trip.
            try await repositories.customers.insert(
                customer, account: caller.accountID,
                announcing: NewEvent("customer.created", rendered: created, account: caller.accountID, request: request)
            )
            guard let attachment = preparedAttachment else { return created }
            if let new = attachment.new { try await repositories.paymentMethods.insert(new, account: caller.accountID, customer: nil) }
            let attached = try await Attachments.attach(attachment.id, to: customer.id, caller: caller, in: repositories)
            try await repositories.events.record(
                NewEvent(
                    "payment_method.attached", object: try JSONValueEncoder().encode(attached.method), account: caller.accountID,
                    request: request
                )
            )
            if customer.invoiceSettings.defaultPaymentMethod != nil {
                try await repositories.customers.update(
                    StoredCustomer(customer: customer, selectedOption: .paymentMethod), account: caller.accountID
                )
            }
            return created
        }
    }

    /// Written once: the event's object and the response are the same bytes.
    private static func rendered(_ customer: Customer) throws -> RenderedJSON {
        RenderedJSON(bytes: JSONWriter.bytes(try JSONValueEncoder().encode(customer)))
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> Lookup {
        let found = try await database.autocommit { try await $0.customers.find(id, visibleTo: caller.visibility) }
        switch found {
        case nil: throw PurseError.noSuch("customer", id, param: "id")
        case .live(let customer): return .active(customer)
        case .deleted(let id): return .deleted(DeletedObject(id: id, object: "customer"))
        }
    }

    public func update(
        _ id: String,
        _ params: CustomerUpdateParameters,
        by caller: Credential,
        request: RequestInfo
    ) async throws -> Customer {
        try await database.transaction(retryingConflicts: 2) { repositories in
            let stored = try await CustomerAccess.lockLive(id, by: caller, in: repositories)
            let old = stored.customer
            var new = old
            if let address = params.address { new.address = try address.value?.address(param: "address") }
            if let description = params.description { new.description = try CustomerFieldRules.description(description.value) }
            if let email = params.email { new.email = try CustomerFieldRules.email(email.value) }
            if let name = params.name { new.name = try CustomerFieldRules.name(name.value) }
            if let phone = params.phone { new.phone = try CustomerFieldRules.phone(phone.value) }
            if let locales = params.preferredLocales { new.preferredLocales = try CustomerFieldRules.locales(locales.value) }
            if let shipping = params.shipping { new.shipping = try shipping.value?.shipping() }
            new.metadata = try MetadataRules.updated(old.metadata, with: params.metadata)
            if let requested = params.invoiceSettings?.defaultPaymentMethod {
                new.invoiceSettings.defaultPaymentMethod = requested.value
                if let method = requested.value, method != old.invoiceSettings.defaultPaymentMethod,
                    !(try await repositories.paymentMethods.isAttached(method, to: old.id, account: caller.accountID))
                {
                    throw Self.notAttached(method)
                }
            }
            guard let event = try NewEvent("customer.updated", from: old, to: new, account: caller.accountID, request: request) else {
                return new
            }
            let selection = DefaultPaymentMethod.selection(of: stored, withDefault: new.invoiceSettings.defaultPaymentMethod)
            try await repositories.customers.update(StoredCustomer(customer: new, selectedOption: selection), account: caller.accountID)
            try await repositories.events.record(event)
            return new
        }
    }

    public func delete(_ id: String, by caller: Credential, request: RequestInfo) async throws -> DeletedObject {
        defer { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return try await database.transaction(retryingConflicts: 2) { repositories in
            let customer = try await CustomerAccess.lockLive(id, by: caller, in: repositories).customer
            try await Self.delete(customer, account: caller.accountID, request: request, in: repositories)
            return DeletedObject(id: id, object: "customer")
        }
    }

    /// Deletes a live customer whose row the transaction has locked: a tombstone keeps the id
    /// (retrieve shows it deleted) and drops the personal data; its keys and sessions stop
    /// working and its payment methods are detached for good, each with its event.
    static func delete(_ customer: Customer, account: String, request: RequestInfo?, in repositories: Repositories) async throws {
        let id = customer.id
        try await repositories.customers.tombstone(id, account: account)
        _ = try await EphemeralKeyService.revokeAll(customer: id, account: account, in: repositories)
        _ = try await CustomerSessionService.revokeAll(customer: id, account: account, in: repositories)
        let encoder = JSONValueEncoder()
        for method in try await repositories.paymentMethods.detachAll(from: id, account: account) {
            try await repositories.events.record(
                NewEvent(
                    "payment_method.detached", object: try encoder.encode(method), previousAttributes: ["customer": .string(id)],
                    account: account, request: request
                )
            )
        }
        try await repositories.events.record(NewEvent("customer.deleted", object: try encoder.encode(customer), account: account, request: request))
    }

    /// "Sign out everywhere": revokes every ephemeral key, customer session and portal session of
    /// the customer at once.
    public func revokeCredentials(_ id: String, by caller: Credential) async throws -> CredentialRevocation {
        defer { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return try await database.transaction(retryingConflicts: 2) { repositories in
            let customer = try await CustomerAccess.lockLive(id, by: caller, in: repositories).customer
            let keys = try await EphemeralKeyService.revokeAll(customer: customer.id, account: caller.accountID, in: repositories)
            let sessions = try await CustomerSessionService.revokeAll(customer: customer.id, account: caller.accountID, in: repositories)
            let portalSessions = try await repositories.billingPortal.revokeSessions(
                customer: customer.id, account: caller.accountID, now: Clock.now, lifetime: .standard
            )
            return CredentialRevocation(
                customer: customer.id, ephemeralKeysRevoked: keys, customerSessionsRevoked: sessions,
                billingPortalSessionsRevoked: portalSessions
            )
        }
    }

    public func list(_ params: CustomerListParameters, by caller: Credential) async throws -> Page<Customer> {
        let pagination = try params.pagination()
        let query = CustomerQuery(account: caller.accountID, email: params.email, created: params.created, testClock: params.testClock)
        return try await database.autocommit { try await $0.customers.list(query, pagination: pagination) }
    }

    /// `GET /v1/customers/search`; the total only when asked for (`expand[]=total_count`).
    public func search(
        _ params: CustomerSearchParameters, countingTotal: Bool, by caller: Credential
    ) async throws
        -> SearchResult<Customer>
    {
        let query = try CustomerSearchParameters.parser.parse(params.query)
        let limit = try Pagination(limit: params.limit, startingAfter: nil, endingBefore: nil).limit
        let position = try params.page.map { try SearchPosition(token: $0, query: params.query) }
        return try await database.autocommit { unit in
            let page = try await unit.customers.search(query, account: caller.accountID, after: position, limit: limit)
            let total =
                countingTotal
                ? try await unit.customers.count(query, account: caller.accountID, upTo: SearchResult<Customer>.maximumTotalCount)
                : nil
            return SearchResult(data: page.data, nextPage: page.next?.token(for: params.query), totalCount: total)
        }
    }

    static func notAttached(_ paymentMethod: String) -> PurseError {
        DefaultPaymentMethod.notAttached(paymentMethod, param: "invoice_settings[default_payment_method]")
    }
}
