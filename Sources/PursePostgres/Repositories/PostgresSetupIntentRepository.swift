import Postgres
import PurseCore
import PurseModels

/// ``SetupIntentRepository`` on the `setup_intents` table.
struct PostgresSetupIntentRepository: SetupIntentRepository {
    let connection: PostgresConnection

    private static let columns = """
        id, account_id, created, customer_id, status, usage, payment_method_types, payment_method_id, description, metadata,
        return_url, cancellation_reason, last_setup_error, mandate, authentication_attempt, sheet_settings_id,
        confirmed_by_client, confirmation_settings_id, payment_method_options, microdeposits,
        (SELECT t.frozen_time FROM customers c
         JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id AND NOT t.deleted
         WHERE c.id = setup_intents.customer_id AND c.account_id = setup_intents.account_id) AS clock_time
        """

    /// The time of `customer`'s live test clock, stamped on each write as `clock_updated_at`
    /// (null for a customer on no clock, and for none).
    private static func clockTime(ofCustomer customer: String?, account: String) -> PostgresQuery {
        """
        (SELECT t.frozen_time FROM customers c
         JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id AND NOT t.deleted
         WHERE c.id = \(customer) AND c.account_id = \(account))
        """
    }

    /// Intents whose customer is on no live test clock: the wall clock's.
    private static let onTheWallClock = """
        NOT EXISTS (
            SELECT 1 FROM customers c
            JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id AND NOT t.deleted
            WHERE c.id = setup_intents.customer_id AND c.account_id = setup_intents.account_id)
        """

    /// The intents of one clock's customers.
    private static func onTheClock(_ clock: String, account: String) -> PostgresQuery {
        "account_id = \(account) AND customer_id IN (SELECT id FROM customers WHERE test_clock = \(clock) AND account_id = \(account))"
    }

    private static let list = KeysetList(table: "setup_intents", columns: columns, noun: "setup intent")

    func insert(_ stored: StoredSetupIntent) async throws {
        let intent = stored.intent
        try connection.queryLater(
            """
            INSERT INTO setup_intents (id, account_id, created, customer_id, status, usage, payment_method_types,
                                       payment_method_id, description, metadata, return_url, sheet_settings_id,
                                       payment_method_options, clock_updated_at)
            VALUES (\(intent.id), \(stored.accountID), \(intent.created), \(intent.customer), \(intent.status.rawValue),
                    \(intent.usage), \(PostgresTextArray(intent.paymentMethodTypes)), \(intent.paymentMethod),
                    \(intent.description), \(StoredJSON.encode(intent.metadata)), \(stored.returnURL),
                    \(intent.customerSheetSettings), \(StoredJSON.encode(stored.options)),
                    \(Self.clockTime(ofCustomer: intent.customer, account: stored.accountID)))
            """
        )
    }

    func find(_ id: String, account: String?, lock: Bool) async throws -> StoredSetupIntent? {
        var query: PostgresQuery = "SELECT \(unsafeSQL: Self.columns) FROM setup_intents WHERE id = \(id)"
        if let account { query.append(" AND account_id = \(account)") }
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(Self.stored)
    }

    func update(_ stored: StoredSetupIntent) async throws {
        let intent = stored.intent
        try connection.queryLater(
            """
            UPDATE setup_intents
            SET customer_id = \(intent.customer), status = \(intent.status.rawValue),
                payment_method_types = \(PostgresTextArray(intent.paymentMethodTypes)), payment_method_id = \(intent.paymentMethod),
                description = \(intent.description), metadata = \(StoredJSON.encode(intent.metadata)),
                return_url = \(stored.returnURL), cancellation_reason = \(intent.cancellationReason),
                last_setup_error = \(StoredJSON.encodeIfPresent(intent.lastSetupError)),
                mandate = \(stored.mandate.map { PostgresJSON(JSONWriter.string($0)) }),
                authentication_attempt = \(Int32(clamping: stored.attempt)), confirmed_by_client = \(stored.confirmedByClient),
                confirmation_settings_id = \(stored.confirmationSettingsID),
                payment_method_options = \(StoredJSON.encode(stored.options)),
                microdeposits = \(StoredJSON.encodeIfPresent(stored.microdeposits)),
                updated_at = now(), clock_updated_at = \(Self.clockTime(ofCustomer: intent.customer, account: stored.accountID))
            WHERE id = \(intent.id) AND account_id = \(stored.accountID)
            """
        )
    }

    func list(_ query: SetupIntentQuery, pagination: Pagination) async throws -> Page<StoredSetupIntent> {
        var filter: PostgresQuery = "account_id = \(query.account)"
        if let customer = query.customer { filter.append(" AND customer_id = \(customer)") }
        if let method = query.paymentMethod { filter.append(" AND payment_method_id = \(method)") }
        if let created = query.created { filter.append(" AND \(created.condition(on: "created"))") }
        return try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.stored)
    }

    func cancelAbandoned(idleSeconds: Int, on timeline: SetupIntentTimeline) async throws -> [StoredSetupIntent] {
        let waiting: PostgresQuery
        switch timeline {
        case .wallClock:
            waiting = "updated_at < now() - \(idleSeconds) * interval '1 second' AND \(unsafeSQL: Self.onTheWallClock)"
        case .testClock(let clock, let account, let time):
            waiting = "\(Self.onTheClock(clock, account: account)) AND clock_updated_at < \(time - idleSeconds)"
        }
        return try await connection.query(
            """
            UPDATE setup_intents SET status = 'canceled', cancellation_reason = 'abandoned', updated_at = now()
            WHERE status IN ('requires_payment_method', 'requires_action') AND microdeposits IS NULL AND \(waiting)
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).map(Self.stored)
    }

    func lockMicrodepositsSent(daysAgo days: Int, on timeline: SetupIntentTimeline) async throws -> [StoredSetupIntent] {
        let sent: PostgresQuery
        switch timeline {
        case .wallClock:
            sent = """
                (microdeposits ->> 'sent_at')::bigint < extract(epoch FROM now())::bigint - \(days) * 86400
                AND \(unsafeSQL: Self.onTheWallClock)
                """
        case .testClock(let clock, let account, let time):
            sent = "\(Self.onTheClock(clock, account: account)) AND (microdeposits ->> 'sent_at')::bigint < \(time - days * 86_400)"
        }
        let lock = timeline == .wallClock ? "FOR UPDATE SKIP LOCKED" : "FOR UPDATE"
        return try await connection.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM setup_intents
            WHERE status = 'requires_action' AND microdeposits IS NOT NULL AND \(sent)
            \(unsafeSQL: lock)
            """
        ).map(Self.stored)
    }

    func joinClock(customer: String, account: String, time: Int, resent: PendingMicrodeposits) async throws {
        try await connection.query(
            """
            UPDATE setup_intents
            SET clock_updated_at = \(time),
                microdeposits = microdeposits || jsonb_build_object('sent_at', \(resent.sentAt), 'arrival_date', \(resent.arrivalDate))
            WHERE customer_id = \(customer) AND account_id = \(account) AND status IN ('requires_payment_method', 'requires_action')
            """
        )
    }

    func stampClockTime(clock: String, account: String, time: Int) async throws {
        try await connection.query(
            """
            UPDATE setup_intents SET clock_updated_at = \(time)
            WHERE \(Self.onTheClock(clock, account: account)) AND clock_updated_at IS NULL
              AND status IN ('requires_payment_method', 'requires_action')
            """
        )
    }

    private static func stored(_ row: PostgresRow) throws -> StoredSetupIntent {
        let statusText: String = try row["status"]
        guard let status = SetupIntentStatus(rawValue: statusText) else {
            throw PGError(.decoding, message: "A setup intent's row holds an unknown status")
        }
        var intent = SetupIntent(
            id: try row["id"], created: try row["created"], customer: try row["customer_id"],
            description: try row["description"],
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]),
            paymentMethod: try row["payment_method_id"],
            paymentMethodTypes: try row["payment_method_types", as: PostgresTextArray.self].elements,
            status: status, usage: try row["usage"]
        )
        intent.cancellationReason = try row["cancellation_reason"]
        intent.customerSheetSettings = try row["sheet_settings_id"]
        intent.lastSetupError = try StoredJSON.decodeIfPresent(SetupError.self, from: try row["last_setup_error"])
        let mandate = try (row["mandate", as: PostgresJSON?.self]).map { try JSONReader.parse($0.text) }
        intent.mandate = mandate?["id"]?.stringValue
        return StoredSetupIntent(
            intent: intent, accountID: try row["account_id"], attempt: Int(try row["authentication_attempt", as: Int32.self]),
            returnURL: try row["return_url"], confirmedByClient: try row["confirmed_by_client"],
            confirmationSettingsID: try row["confirmation_settings_id"], mandate: mandate,
            options: try StoredJSON.decodeIfPresent(SetupIntentOptions.self, from: try row["payment_method_options"])
                ?? SetupIntentOptions(),
            microdeposits: try StoredJSON.decodeIfPresent(PendingMicrodeposits.self, from: try row["microdeposits"]),
            clockTime: try row["clock_time"]
        )
    }
}
