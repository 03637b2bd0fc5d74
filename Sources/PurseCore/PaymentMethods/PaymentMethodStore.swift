import Postgres
public import PurseModels

/// A payment method as stored: the object, its state and the processor's reference.
public struct StoredPaymentMethod: Sendable {
    public enum State: String, Sendable { case unattached, attached, detached }

    public var model: PaymentMethod
    public var state: State
    public var processorReference: String
    public var type: PaymentMethodType
}

/// The SQL for payment methods, shared by the services that change them.
enum PaymentMethodStore {
    /// What every read selects; ``rendered(_:)`` reads them by position.
    static let columns = """
        id, created, type, state, customer_id, billing_details, allow_redisplay, metadata, details, processor_reference
        """

    static let list = KeysetList(table: "payment_methods", columns: columns, noun: "payment method")

    /// The INSERT for a new payment method (unattached, or attached to `customer`).
    static func insert(_ new: NewPaymentMethod, account: String, customer: String? = nil) -> PostgresQuery {
        let model = new.model
        let card = model.card
        let country = card?.country ?? model.sepaDebit?.country ?? (model.usBankAccount == nil ? nil : "US")
        return """
            INSERT INTO payment_methods (id, account_id, created, type, state, customer_id, billing_details, allow_redisplay,
                                         metadata, details, processor_reference, fingerprint, card_brand, card_funding,
                                         card_exp_month, card_exp_year, country)
            VALUES (\(model.id), \(account), \(model.created), \(new.type.rawValue), \(customer == nil ? "unattached" : "attached"),
                    \(customer), \(StoredJSON.encode(model.billingDetails)), \(model.allowRedisplay),
                    \(StoredJSON.encode(model.metadata)), \(details(of: model)), \(new.processorReference),
                    \(fingerprint(of: model)), \(card?.brand), \(card?.funding), \(card.map { Int32($0.expMonth) }),
                    \(card.map { Int32($0.expYear) }), \(country))
            """
    }

    /// The payment method `id` in `account` (and, for a customer's credential, attached to that
    /// customer), optionally locked for the rest of the transaction.
    static func find(
        _ id: String, by caller: Credential, lock: Bool = false, on connection: isolated PostgresConnection
    ) async throws -> StoredPaymentMethod? {
        var query = findQuery(id, by: caller)
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(stored)
    }

    /// ``find(_:by:lock:on:)`` outside a transaction: a lone statement, which the pool answers
    /// without one of its threads.
    static func find(_ id: String, by caller: Credential, pool: PostgresClient) async throws -> StoredPaymentMethod? {
        try await pool.query(findQuery(id, by: caller)).first.map(stored)
    }

    private static func findQuery(_ id: String, by caller: Credential) -> PostgresQuery {
        "SELECT \(unsafeSQL: columns) FROM payment_methods WHERE id = \(id) AND \(scope(caller))"
    }

    /// Payment methods a caller may see: its account's, or for a customer's credential only that
    /// customer's attached ones.
    static func scope(_ caller: Credential) -> PostgresQuery {
        guard let customerID = caller.customerID else { return "account_id = \(caller.accountID)" }
        return "account_id = \(caller.accountID) AND customer_id = \(customerID) AND state = 'attached'"
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

    /// Detaches every method attached to a customer (it is being deleted); returns them as they
    /// became, for their events.
    static func detachAll(customer: String, account: String, on connection: isolated PostgresConnection) async throws -> [PaymentMethod] {
        try await connection.query(
            """
            UPDATE payment_methods SET state = 'detached', customer_id = NULL
            WHERE account_id = \(account) AND customer_id = \(customer) AND state = 'attached'
            RETURNING \(unsafeSQL: columns)
            """
        ).map(paymentMethod)
    }
}
