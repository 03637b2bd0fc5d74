public import Postgres
public import PurseModels

/// Customers: create, retrieve, update, delete, list.
public struct CustomerService: Sendable {
    private let pool: PostgresClient
    private let paymentMethods: PaymentMethodService
    private let events = EventRecorder()
    /// Emptied when a customer's keys stop working, before the response is sent.
    private let caches: ChangeCaches

    public init(pool: PostgresClient, paymentMethods: PaymentMethodService, caches: ChangeCaches) {
        self.pool = pool
        self.paymentMethods = paymentMethods
        self.caches = caches
    }

    /// A customer as found: live, or the stub a deleted one leaves.
    public enum Lookup: Sendable {
        case active(Customer)
        case deleted(DeletedObject)
    }

    static let columns = """
        id, created, email, name, phone, description, address, shipping, metadata, preferred_locales,
        invoice_prefix, default_payment_method, deleted
        """

    static let list = KeysetList(table: "customers", columns: columns, noun: "customer")

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
        let insert: PostgresQuery = """
            INSERT INTO customers (id, account_id, created, email, name, phone, description, address, shipping,
                                   metadata, preferred_locales, invoice_prefix)
            VALUES (\(customer.id), \(caller.accountID), \(customer.created), \(customer.email), \(customer.name),
                    \(customer.phone), \(customer.description), \(StoredJSON.encodeIfPresent(customer.address)),
                    \(StoredJSON.encodeIfPresent(customer.shipping)), \(StoredJSON.encode(customer.metadata)),
                    \(PostgresTextArray(customer.preferredLocales)), \(customer.invoicePrefix))
            """
        // Written once: the event's object and the response are the same bytes.
        let created = RenderedJSON(bytes: JSONWriter.bytes(try JSONValueEncoder().encode(customer)))
        let event = events.insert("customer.created", rendered: created, account: caller.accountID, request: request)
        guard let attachment else {
            // The common case in one statement: the customer and its event.
            try await pool.query(
                "WITH inserted AS (\(insert)), event AS (\(event)), deliveries AS (\(EventRecorder.deliveries)) SELECT 1"
            )
            return created
        }
        let events = self.events
        let finished = customer
        try await pool.withTransaction(retryingConflicts: 2) { connection in
            // Nothing reads these rows: they travel with the attach's UPDATE in one round trip.
            try connection.queryLater(insert)
            try connection.queryLater("WITH event AS (\(event)), deliveries AS (\(EventRecorder.deliveries)) SELECT 1")
            if let new = attachment.new { try connection.queryLater(PaymentMethodStore.insert(new, account: caller.accountID)) }
            let attached = try await PaymentMethodService.attach(attachment.id, to: finished.id, caller: caller, on: connection)
            try await events.record(
                "payment_method.attached", object: try JSONValueEncoder().encode(attached.method),
                account: caller.accountID, request: request, on: connection
            )
            if let method = finished.invoiceSettings.defaultPaymentMethod {
                try connection.queryLater(
                    """
                    UPDATE customers SET default_payment_method = \(method), selected_option = 'payment_method'
                    WHERE id = \(finished.id)
                    """
                )
            }
        }
        return created
    }

    public func retrieve(_ id: String, by caller: Credential) async throws -> Lookup {
        let rows = try await pool.query(
            "SELECT \(unsafeSQL: Self.columns) FROM customers WHERE id = \(id) AND \(Self.scope(caller))"
        )
        guard let row = rows.first else { throw PurseError.noSuch("customer", id, param: "id") }
        if try row["deleted", as: Bool.self] { return .deleted(DeletedObject(id: id, object: "customer")) }
        return .active(try Self.customer(row))
    }

    public func update(
        _ id: String,
        _ params: CustomerUpdateParameters,
        by caller: Credential,
        request: RequestInfo
    ) async throws -> Customer {
        let events = self.events
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            let old = try await Self.lockActive(id, by: caller, on: connection)
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
                if let method = requested.value, method != old.invoiceSettings.defaultPaymentMethod {
                    try await Self.requireAttached(method, to: old.id, caller: caller, on: connection)
                }
            }
            return try await Self.save(old: old, new: new, caller: caller, request: request, events: events, on: connection)
        }
    }

    public func delete(_ id: String, by caller: Credential, request: RequestInfo) async throws -> DeletedObject {
        let events = self.events
        defer { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            let customer = try await Self.lockActive(id, by: caller, on: connection)
            // A tombstone: the id stays (retrieve shows it deleted), the personal data goes.
            try await connection.query(
                """
                UPDATE customers
                SET deleted = true, email = NULL, name = NULL, phone = NULL, description = NULL, address = NULL,
                    shipping = NULL, metadata = '{}', preferred_locales = '{}', default_payment_method = NULL,
                    selected_option = NULL
                WHERE id = \(id) AND account_id = \(caller.accountID)
                """
            )
            // Its keys stop working and its payment methods are detached for good, in the same transaction.
            let repositories = PostgresDatabase.repositories(on: connection)
            _ = try await EphemeralKeyService.revokeAll(customer: id, account: caller.accountID, in: repositories)
            _ = try await CustomerSessionService.revokeAll(customer: id, account: caller.accountID, in: repositories)
            let encoder = JSONValueEncoder()
            for method in try await PaymentMethodStore.detachAll(customer: id, account: caller.accountID, on: connection) {
                try await events.record(
                    "payment_method.detached", object: try encoder.encode(method),
                    previousAttributes: ["customer": .string(id)], account: caller.accountID, request: request,
                    on: connection
                )
            }
            try await events.record(
                "customer.deleted", object: try encoder.encode(customer), account: caller.accountID,
                request: request, on: connection
            )
            return DeletedObject(id: id, object: "customer")
        }
    }

    /// "Sign out everywhere": revokes every ephemeral key and session of the customer at once.
    public func revokeCredentials(_ id: String, by caller: Credential) async throws -> CredentialRevocation {
        defer { caches.invalidate(topic: ChangeCaches.credentialsTopic) }
        return try await pool.withTransaction(retryingConflicts: 2) { connection in
            let customer = try await Self.lockActive(id, by: caller, on: connection)
            let repositories = PostgresDatabase.repositories(on: connection)
            let keys = try await EphemeralKeyService.revokeAll(customer: customer.id, account: caller.accountID, in: repositories)
            let sessions = try await CustomerSessionService.revokeAll(customer: customer.id, account: caller.accountID, in: repositories)
            return CredentialRevocation(customer: customer.id, ephemeralKeysRevoked: keys, customerSessionsRevoked: sessions)
        }
    }

    public func list(_ params: CustomerListParameters, by caller: Credential) async throws -> Page<Customer> {
        let pagination = try params.pagination()
        var filter: PostgresQuery = "account_id = \(caller.accountID) AND NOT deleted"
        if let email = params.email { filter.append(" AND email = \(email)") }
        if let created = params.created { filter.append(" AND \(created.condition(on: "created"))") }
        let condition = filter
        return try await pool.withConnection { connection in
            try await Self.list.page(on: connection, where: condition, pagination: pagination, decode: Self.customer)
        }
    }

    // MARK: - Internals

    /// Customers the caller may see: its account's, and for customer-scoped credentials only its own.
    static func scope(_ caller: Credential) -> PostgresQuery {
        guard let customerID = caller.customerID else { return "account_id = \(caller.accountID)" }
        return "account_id = \(caller.accountID) AND id = \(customerID)"
    }

    /// Reads a live customer and locks its row for the rest of the transaction: every change to
    /// a customer or its payment methods goes through this lock, so they never race.
    static func lockActive(
        _ id: String, by caller: Credential, on connection: isolated PostgresConnection, param: String = "id"
    ) async throws -> Customer {
        let rows = try await connection.query(
            """
            SELECT \(unsafeSQL: columns) FROM customers
            WHERE id = \(id) AND \(scope(caller)) AND NOT deleted
            FOR UPDATE
            """
        )
        guard let row = rows.first else { throw PurseError.noSuch("customer", id, param: param) }
        return try customer(row)
    }

    private static func save(
        old: Customer, new: Customer, caller: Credential, request: RequestInfo, events: EventRecorder,
        on connection: isolated PostgresConnection
    ) async throws -> Customer {
        guard old != new else { return new }
        let update: PostgresQuery = """
            UPDATE customers
            SET email = \(new.email), name = \(new.name), phone = \(new.phone), description = \(new.description),
                address = \(StoredJSON.encodeIfPresent(new.address)), shipping = \(StoredJSON.encodeIfPresent(new.shipping)),
                metadata = \(StoredJSON.encode(new.metadata)), preferred_locales = \(PostgresTextArray(new.preferredLocales)),
                default_payment_method = \(new.invoiceSettings.defaultPaymentMethod),
                -- Setting the default selects it; clearing it clears a selection of it (spec §4).
                selected_option = CASE
                    WHEN \(new.invoiceSettings.defaultPaymentMethod) IS DISTINCT FROM default_payment_method
                        THEN CASE WHEN \(new.invoiceSettings.defaultPaymentMethod) IS NULL
                                  THEN (CASE WHEN selected_option = 'payment_method' THEN NULL ELSE selected_option END)
                                  ELSE 'payment_method' END
                    ELSE selected_option END
            WHERE id = \(new.id) AND account_id = \(caller.accountID)
            """
        let encoder = JSONValueEncoder()
        let before = try encoder.encode(old)
        let after = try encoder.encode(new)
        try await events.record(
            "customer.updated", object: after, previousAttributes: AttributeDiff.previousAttributes(from: before, to: after),
            account: caller.accountID, request: request, with: update, on: connection
        )
        return new
    }

    /// Refuses a default that is not attached to the customer.
    static func requireAttached(_ method: String, to customer: String, caller: Credential, on connection: isolated PostgresConnection) async throws {
        let attached = try await connection.query(
            """
            SELECT 1 FROM payment_methods
            WHERE id = \(method) AND account_id = \(caller.accountID) AND customer_id = \(customer) AND state = 'attached'
            """
        )
        guard !attached.isEmpty else { throw notAttached(method) }
    }

    static func notAttached(_ paymentMethod: String) -> PurseError {
        PurseError(
            .invalidRequest, code: "resource_missing",
            message: "No such PaymentMethod: '\(paymentMethod)'. The payment method must be attached to the customer.",
            param: "invoice_settings[default_payment_method]"
        )
    }

    static func customer(_ row: PostgresRow) throws -> Customer {
        Customer(
            id: try row["id"],
            created: try row["created"],
            address: try StoredJSON.decodeIfPresent(Address.self, from: try row["address"]),
            description: try row["description"],
            email: try row["email"],
            invoicePrefix: try row["invoice_prefix"],
            invoiceSettings: InvoiceSettings(defaultPaymentMethod: try row["default_payment_method"]),
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]),
            name: try row["name"],
            phone: try row["phone"],
            preferredLocales: try row["preferred_locales", as: PostgresTextArray.self].elements,
            shipping: try StoredJSON.decodeIfPresent(Shipping.self, from: try row["shipping"])
        )
    }
}
