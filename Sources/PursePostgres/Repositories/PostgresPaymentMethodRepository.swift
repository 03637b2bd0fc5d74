import Postgres
import PurseCore
import PurseModels

/// ``PaymentMethodRepository`` on the `payment_methods` table.
struct PostgresPaymentMethodRepository: PaymentMethodRepository {
    let connection: PostgresConnection

    /// What every read selects; ``rendered(_:)`` reads them by position.
    static let columns = """
        id, created, type, state, customer_id, billing_details, allow_redisplay, metadata, details, processor_reference
        """

    private static let list = KeysetList(table: "payment_methods", columns: columns, noun: "payment method")

    func insert(_ new: NewPaymentMethod, account: String, customer: String?) async throws {
        let model = new.model
        let card = model.card
        let country = card?.country ?? model.sepaDebit?.country ?? (model.usBankAccount == nil ? nil : "US")
        try connection.queryLater(
            """
            INSERT INTO payment_methods (id, account_id, created, type, state, customer_id, billing_details, allow_redisplay,
                                         metadata, details, processor_reference, fingerprint, card_brand, card_funding,
                                         card_exp_month, card_exp_year, country)
            VALUES (\(model.id), \(account), \(model.created), \(new.type.rawValue), \(customer == nil ? "unattached" : "attached"),
                    \(customer), \(StoredJSON.encode(model.billingDetails)), \(model.allowRedisplay),
                    \(StoredJSON.encode(model.metadata)), \(Self.details(of: model)), \(new.processorReference),
                    \(Self.fingerprint(of: model)), \(card?.brand), \(card?.funding), \(card.map { Int32($0.expMonth) }),
                    \(card.map { Int32($0.expYear) }), \(country))
            """
        )
    }

    func find(_ id: String, visibleTo visibility: Visibility, lock: Bool) async throws -> StoredPaymentMethod? {
        var query: PostgresQuery = "SELECT \(unsafeSQL: Self.columns) FROM payment_methods WHERE id = \(id) AND \(Self.scope(visibility))"
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(Self.stored)
    }

    func listAttached(_ query: AttachedMethodsQuery, pagination: Pagination) async throws -> Page<RenderedJSON>? {
        let customer = query.customer
        // The customer's visibility is part of the page's own statement; only an empty page needs
        // a second one to tell "no methods" from "no such customer".
        var filter: PostgresQuery = """
            account_id = \(query.visibility.account) AND customer_id = \(customer) AND state = 'attached'
              AND EXISTS (SELECT 1 FROM customers WHERE id = \(customer) AND \(PostgresCustomerRepository.scope(query.visibility))
                          AND NOT deleted)
            """
        if let type = query.type { filter.append(" AND type = \(type.rawValue)") }
        if let redisplay = query.allowRedisplay { filter.append(" AND allow_redisplay = \(redisplay)") }
        if let savedFilter = query.filter { filter.append(" AND \(savedFilter.condition(now: query.now))") }
        let customers = PostgresCustomerRepository(connection: connection)
        guard pagination.cursor != nil else {
            // The usual call, a first page, is one statement.
            let page = try await Self.list.firstPage(on: connection, where: filter, limit: pagination.limit, decode: Self.rendered)
            if page.data.isEmpty, !(try await customers.isLive(customer, visibleTo: query.visibility)) { return nil }
            return page
        }
        // An unknown customer is named before an unknown cursor.
        guard try await customers.isLive(customer, visibleTo: query.visibility) else { return nil }
        return try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.rendered)
    }

    func sheet(_ query: SheetMethodsQuery) async throws -> SheetMethods? {
        // One statement: a row per method (or one row without a method) for a live customer,
        // none for a missing one.
        let rows = try await connection.query(
            """
            SELECT c.default_payment_method, m.* FROM customers c
            LEFT JOIN LATERAL (
                SELECT \(unsafeSQL: Self.columns), seq FROM payment_methods
                WHERE account_id = \(query.account) AND customer_id = c.id AND state = 'attached'
                  AND (allow_redisplay = ANY(\(PostgresTextArray(query.allowRedisplay))) OR id = \(query.alsoShowing ?? ""))
                  AND \(query.filter.condition(now: query.now))
                ORDER BY created DESC, seq DESC LIMIT 100
            ) m ON true
            WHERE c.id = \(query.customer) AND c.account_id = \(query.account) AND NOT c.deleted
            ORDER BY m.created DESC, m.seq DESC
            """
        )
        guard let first = rows.first else { return nil }
        let methods = try rows.filter { try $0["id", as: String?.self] != nil }.map(Self.paymentMethod)
        return SheetMethods(methods: methods, defaultMethod: try first["default_payment_method"])
    }

    func passes(_ id: String, account: String, filter: CustomerSheetSettings.SavedPaymentMethodFilter, now: Int) async throws -> Bool {
        let rows = try await connection.query(
            // A condition on a column the method leaves NULL (a card without a country under a
            // countries filter) is NULL, which a WHERE treats as false: so does this.
            """
            SELECT coalesce(\(filter.condition(now: now)), false) AS visible
            FROM payment_methods WHERE id = \(id) AND account_id = \(account)
            """
        )
        return try rows.first?["visible", as: Bool.self] ?? false
    }

    func update(_ method: PaymentMethod, account: String) async throws {
        let card = method.card
        try connection.queryLater(
            """
            UPDATE payment_methods
            SET billing_details = \(StoredJSON.encode(method.billingDetails)), allow_redisplay = \(method.allowRedisplay),
                metadata = \(StoredJSON.encode(method.metadata)), details = \(Self.details(of: method)),
                card_exp_month = \(card.map { Int32($0.expMonth) }), card_exp_year = \(card.map { Int32($0.expYear) })
            WHERE id = \(method.id) AND account_id = \(account)
            """
        )
    }

    func attach(_ id: String, to customer: String, account: String, limit: Int) async throws -> PaymentMethod? {
        // The count is taken under the customer's row lock, which every attach holds, so two
        // attaches cannot both pass the limit.
        try await connection.query(
            """
            UPDATE payment_methods SET state = 'attached', customer_id = \(customer)
            WHERE id = \(id) AND account_id = \(account) AND state = 'unattached'
              AND (SELECT count(*) FROM payment_methods
                   WHERE account_id = \(account) AND customer_id = \(customer) AND state = 'attached') < \(limit)
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).first.map(Self.paymentMethod)
    }

    func isAttached(_ id: String, to customer: String, account: String) async throws -> Bool {
        !(try await connection.query(
            """
            SELECT 1 FROM payment_methods
            WHERE id = \(id) AND account_id = \(account) AND customer_id = \(customer) AND state = 'attached'
            """
        ).isEmpty)
    }

    func attachedCount(customer: String, account: String) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT count(*) AS n FROM payment_methods
            WHERE account_id = \(account) AND customer_id = \(customer) AND state = 'attached'
            """
        )
        return try rows.first?["n", as: Int.self] ?? 0
    }

    func detach(_ id: String, from customer: String, account: String) async throws -> PaymentMethod? {
        try await connection.query(
            """
            UPDATE payment_methods SET state = 'detached', customer_id = NULL
            WHERE id = \(id) AND account_id = \(account) AND customer_id = \(customer) AND state = 'attached'
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).first.map(Self.paymentMethod)
    }

    func detachAll(from customer: String, account: String) async throws -> [PaymentMethod] {
        try await connection.query(
            """
            UPDATE payment_methods SET state = 'detached', customer_id = NULL
            WHERE account_id = \(account) AND customer_id = \(customer) AND state = 'attached'
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).map(Self.paymentMethod)
    }

    func latestCard(
        fingerprint: String, customer: String, excluding excluded: String, account: String
    ) async throws
        -> PaymentMethod?
    {
        try await connection.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM payment_methods
            WHERE account_id = \(account) AND customer_id = \(customer) AND state = 'attached' AND type = 'card'
              AND fingerprint = \(fingerprint) AND id <> \(excluded)
            ORDER BY created DESC, seq DESC LIMIT 1
            FOR UPDATE
            """
        ).first.map(Self.paymentMethod)
    }

    /// Payment methods in view: the account's, or for a customer's credential only that
    /// customer's attached ones.
    private static func scope(_ visibility: Visibility) -> PostgresQuery {
        guard let customer = visibility.customer else { return "account_id = \(visibility.account)" }
        return "account_id = \(visibility.account) AND customer_id = \(customer) AND state = 'attached'"
    }

    static func stored(_ row: PostgresRow) throws -> StoredPaymentMethod {
        let typeText: String = try row["type"]
        guard let type = PaymentMethodType(rawValue: typeText),
            let state = StoredPaymentMethod.State(rawValue: try row["state"])
        else { throw PurseError(.invalidRequest, message: "A stored payment method is malformed") }
        let details: PostgresJSON = try row["details"]
        var model = PaymentMethod(
            id: try row["id"],
            allowRedisplay: try row["allow_redisplay"],
            billingDetails: try StoredJSON.decode(BillingDetails.self, from: try row["billing_details"]),
            created: try row["created"],
            customer: try row["customer_id"],
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]),
            type: typeText
        )
        switch type {
        case .card: model.card = try StoredJSON.decode(CardDetails.self, from: details)
        case .usBankAccount: model.usBankAccount = try StoredJSON.decode(USBankAccountDetails.self, from: details)
        case .sepaDebit: model.sepaDebit = try StoredJSON.decode(SepaDebitDetails.self, from: details)
        }
        return StoredPaymentMethod(model: model, state: state, processorReference: try row["processor_reference"], type: type)
    }

    static func paymentMethod(_ row: PostgresRow) throws -> PaymentMethod {
        try stored(row).model
    }

    /// A row of ``columns`` written straight to its wire JSON: the same bytes as encoding
    /// ``paymentMethod(_:)``'s model, but the stored documents (`json` columns holding the
    /// text Purse wrote) are copied rather than decoded and encoded again, which was most of
    /// the CPU a list spent.
    static func rendered(_ row: PostgresRow) throws -> RenderedJSON {
        func text(_ column: Int) throws -> ArraySlice<UInt8> {
            guard let bytes = try row.utf8Text(at: column) else {
                throw PurseError(.invalidRequest, message: "A stored payment method is malformed")
            }
            return bytes
        }
        let typeText = try text(2)
        guard let type = PaymentMethodType(rawValue: String(decoding: typeText, as: UTF8.self)) else {
            throw PurseError(.invalidRequest, message: "A stored payment method is malformed")
        }
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        // The type's own hash sits under its name (the type's raw value), in the model's key order.
        func details(if only: PaymentMethodType) throws {
            guard type == only else { return }
            output.append(contentsOf: ",\"\(only.rawValue)\":".utf8)
            output.append(contentsOf: try text(8))
        }
        output.append(contentsOf: #"{"id":"#.utf8)
        JSONWriter.writeString(utf8: try text(0), to: &output)
        output.append(contentsOf: #","object":"payment_method","allow_redisplay":"#.utf8)
        JSONWriter.writeString(utf8: try text(6), to: &output)
        output.append(contentsOf: #","billing_details":"#.utf8)
        output.append(contentsOf: try text(5))
        try details(if: .card)
        output.append(contentsOf: #","created":"#.utf8)
        output.append(contentsOf: String(try row.decode(Int.self, at: 1)).utf8)
        output.append(contentsOf: #","customer":"#.utf8)
        if let customer = try row.utf8Text(at: 4) {
            JSONWriter.writeString(utf8: customer, to: &output)
        } else {
            output.append(contentsOf: "null".utf8)
        }
        output.append(contentsOf: #","livemode":false,"metadata":"#.utf8)
        output.append(contentsOf: try text(7))
        try details(if: .sepaDebit)
        output.append(contentsOf: #","type":"#.utf8)
        JSONWriter.writeString(utf8: typeText, to: &output)
        try details(if: .usBankAccount)
        output.append(UInt8(ascii: "}"))
        return RenderedJSON(bytes: output)
    }

    static func details(of model: PaymentMethod) -> PostgresJSON {
        if let card = model.card { return StoredJSON.encode(card) }
        if let bank = model.usBankAccount { return StoredJSON.encode(bank) }
        if let sepa = model.sepaDebit { return StoredJSON.encode(sepa) }
        return PostgresJSON("{}")
    }

    static func fingerprint(of model: PaymentMethod) -> String {
        model.card?.fingerprint ?? model.usBankAccount?.fingerprint ?? model.sepaDebit?.fingerprint ?? ""
    }
}
