import Postgres
import PurseCore
import PurseModels

/// ``BillingPortalRepository`` on the `billing_portal_configurations` and
/// `billing_portal_sessions` tables.
struct PostgresBillingPortalRepository: BillingPortalRepository {
    let connection: PostgresConnection

    private static let configurationColumns = """
        id, created, updated, is_default, active, name, default_return_url, business_profile, payment_method_update, metadata
        """

    private static let sessionColumns = """
        id, account_id, customer_id, configuration_id, created, last_active, completed_at, locale, return_url, flow
        """

    private static let list = KeysetList(
        table: "billing_portal_configurations", columns: configurationColumns, noun: "billing portal configuration"
    )

    func insertConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws {
        try await connection.query(Self.insert(configuration, account: account))
    }

    func insertDefaultConfigurationIfMissing(_ configuration: BillingPortalConfiguration, account: String) async throws {
        var query = Self.insert(configuration, account: account)
        query.append(" ON CONFLICT (account_id) WHERE is_default DO NOTHING")
        try await connection.query(query)
    }

    func findConfiguration(_ id: String, account: String, lock: Bool) async throws -> BillingPortalConfiguration? {
        var query: PostgresQuery = """
            SELECT \(unsafeSQL: Self.configurationColumns) FROM billing_portal_configurations WHERE account_id = \(account)
            """
        query.append(id == "default" ? " AND is_default" : " AND id = \(id)")
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(Self.configuration)
    }

    func updateConfiguration(_ configuration: BillingPortalConfiguration, account: String) async throws {
        try await connection.query(
            """
            UPDATE billing_portal_configurations
            SET updated = \(configuration.updated), active = \(configuration.active), name = \(configuration.name),
                default_return_url = \(configuration.defaultReturnURL),
                business_profile = \(StoredJSON.encode(configuration.businessProfile)),
                payment_method_update = \(configuration.features.paymentMethodUpdate.enabled),
                metadata = \(StoredJSON.encode(configuration.metadata))
            WHERE id = \(configuration.id) AND account_id = \(account)
            """
        )
    }

    func listConfigurations(
        account: String, active: Bool?, isDefault: Bool?, pagination: Pagination
    ) async throws -> Page<BillingPortalConfiguration> {
        var filter: PostgresQuery = "account_id = \(account)"
        if let active { filter.append(" AND active = \(active)") }
        if let isDefault { filter.append(" AND is_default = \(isDefault)") }
        return try await Self.list.page(on: connection, where: filter, pagination: pagination, decode: Self.configuration)
    }

    func insertSession(_ stored: StoredPortalSession) async throws {
        let session = stored.session
        try await connection.query(
            """
            INSERT INTO billing_portal_sessions (id, account_id, customer_id, configuration_id, created, locale, return_url, flow)
            VALUES (\(session.id), \(stored.accountID), \(session.customer), \(session.configuration), \(session.created),
                    \(session.locale), \(session.returnURL), \(StoredJSON.encodeIfPresent(session.flow)))
            """
        )
    }

    func visitSession(_ id: String, now: Int, lifetime: PortalSessionLifetime) async throws -> StoredPortalSession? {
        // One statement both checks that the session is open and records the visit.
        let rows = try await connection.query(
            """
            UPDATE billing_portal_sessions s SET last_active = \(now)
            FROM customers c
            WHERE s.id = \(id) AND c.id = s.customer_id AND c.account_id = s.account_id AND NOT c.deleted
              AND s.revoked_at IS NULL AND \(Self.isOpen(lifetime, now: now, alias: "s."))
            RETURNING s.id, s.account_id, s.customer_id, s.configuration_id, s.created, s.last_active, s.completed_at,
                      s.locale, s.return_url, s.flow,
                      (SELECT t.frozen_time FROM test_clocks t WHERE t.id = c.test_clock AND t.account_id = c.account_id) AS clock_time
            """
        )
        return try rows.first.map(Self.session)
    }

    func completeSession(_ id: String, account: String, now: Int) async throws {
        try await connection.query(
            "UPDATE billing_portal_sessions SET completed_at = \(now) WHERE id = \(id) AND account_id = \(account) AND completed_at IS NULL"
        )
    }

    func revokeSessions(customer: String, account: String, now: Int, lifetime: PortalSessionLifetime) async throws -> Int {
        try await connection.query(
            """
            UPDATE billing_portal_sessions SET revoked_at = \(now)
            WHERE account_id = \(account) AND customer_id = \(customer) AND revoked_at IS NULL
              AND \(Self.isOpen(lifetime, now: now, alias: ""))
            """
        ).affectedRows
    }

    /// ``PortalSessionLifetime/isOpen(created:lastActive:now:)`` in SQL, on the columns of the
    /// table aliased `alias` (a code constant).
    private static func isOpen(_ lifetime: PortalSessionLifetime, now: Int, alias: String) -> PostgresQuery {
        """
        \(unsafeSQL: alias)created + \(lifetime.maximum) > \(now)
        AND ((\(unsafeSQL: alias)last_active IS NULL AND \(unsafeSQL: alias)created + \(lifetime.firstVisit) > \(now))
             OR \(unsafeSQL: alias)last_active + \(lifetime.idle) > \(now))
        """
    }

    private static func insert(_ configuration: BillingPortalConfiguration, account: String) -> PostgresQuery {
        """
        INSERT INTO billing_portal_configurations (id, account_id, created, updated, is_default, active, name, default_return_url,
            business_profile, payment_method_update, metadata)
        VALUES (\(configuration.id), \(account), \(configuration.created), \(configuration.updated), \(configuration.isDefault),
                \(configuration.active), \(configuration.name), \(configuration.defaultReturnURL),
                \(StoredJSON.encode(configuration.businessProfile)), \(configuration.features.paymentMethodUpdate.enabled),
                \(StoredJSON.encode(configuration.metadata)))
        """
    }

    private static func configuration(_ row: PostgresRow) throws -> BillingPortalConfiguration {
        BillingPortalConfiguration(
            id: try row["id"], active: try row["active"],
            businessProfile: try StoredJSON.decode(BillingPortalConfiguration.BusinessProfile.self, from: try row["business_profile"]),
            created: try row["created"], defaultReturnURL: try row["default_return_url"],
            paymentMethodUpdate: try row["payment_method_update"], isDefault: try row["is_default"],
            metadata: try StoredJSON.decode(Metadata.self, from: try row["metadata"]), name: try row["name"], updated: try row["updated"]
        )
    }

    private static func session(_ row: PostgresRow) throws -> StoredPortalSession {
        StoredPortalSession(
            session: BillingPortalSession(
                id: try row["id"], configuration: try row["configuration_id"], created: try row["created"], customer: try row["customer_id"],
                flow: try StoredJSON.decodeIfPresent(BillingPortalSession.Flow.self, from: try row["flow"]), locale: try row["locale"],
                returnURL: try row["return_url"], url: nil
            ),
            accountID: try row["account_id"], lastActive: try row["last_active"], completedAt: try row["completed_at"],
            customerClockTime: try row["clock_time"]
        )
    }
}
