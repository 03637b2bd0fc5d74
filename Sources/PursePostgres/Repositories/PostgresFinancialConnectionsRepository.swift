import Postgres
import PurseCore
import PurseModels

/// ``FinancialConnectionsRepository`` on the `financial_connections_sessions` table, whose row
/// holds a session and the account linked through it.
struct PostgresFinancialConnectionsRepository: FinancialConnectionsRepository {
    let connection: PostgresConnection

    private static let columns = """
        id, account_id, created, customer_id, setup_intent_id, unique_id, hosted_surface, status, app_id,
        linked_account_id, linked_account_created, institution_name, display_name, last4, routing_number, subcategory,
        fingerprint, processor_reference, link_options
        """

    func insert(_ session: StoredFinancialConnectionsSession) async throws {
        try connection.queryLater(
            """
            INSERT INTO financial_connections_sessions (id, account_id, created, customer_id, setup_intent_id, unique_id,
                                                        hosted_surface, status, app_id, link_options)
            VALUES (\(session.id), \(session.accountID), \(session.created), \(session.customer), \(session.setupIntent),
                    \(session.uniqueID), \(session.hostedSurface), \(session.status.rawValue), \(session.appID),
                    \(StoredJSON.encode(session.link)))
            """
        )
    }

    func find(_ id: String, account: String?, lock: Bool) async throws -> StoredFinancialConnectionsSession? {
        var query: PostgresQuery = "SELECT \(unsafeSQL: Self.columns) FROM financial_connections_sessions WHERE id = \(id)"
        if let account { query.append(" AND account_id = \(account)") }
        if lock { query.append(" FOR UPDATE") }
        return try await connection.query(query).first.map(Self.session)
    }

    func find(linkedAccount id: String, account: String) async throws -> StoredFinancialConnectionsSession? {
        try await connection.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM financial_connections_sessions
            WHERE linked_account_id = \(id) AND account_id = \(account)
            """
        ).first.map(Self.session)
    }

    func update(_ session: StoredFinancialConnectionsSession) async throws {
        let linked = session.linkedAccount
        try connection.queryLater(
            """
            UPDATE financial_connections_sessions
            SET status = \(session.status.rawValue), app_id = \(session.appID), linked_account_id = \(linked?.id),
                linked_account_created = \(linked?.created), institution_name = \(linked?.institutionName),
                display_name = \(linked?.displayName), last4 = \(linked?.last4), routing_number = \(linked?.routingNumber),
                subcategory = \(linked?.subcategory), fingerprint = \(linked?.fingerprint),
                processor_reference = \(linked?.processorReference)
            WHERE id = \(session.id) AND account_id = \(session.accountID)
            """
        )
    }

    private static func session(_ row: PostgresRow) throws -> StoredFinancialConnectionsSession {
        let statusText: String = try row["status"]
        guard let status = FinancialConnectionsSessionStatus(rawValue: statusText) else {
            throw PGError(.decoding, message: "A Financial Connections session's row holds an unknown status")
        }
        var linked: LinkedBankAccount?
        if let accountID: String = try row["linked_account_id"] {
            linked = LinkedBankAccount(
                id: accountID, created: try row["linked_account_created"], institutionName: try row["institution_name"],
                displayName: try row["display_name"], last4: try row["last4"], routingNumber: try row["routing_number"],
                subcategory: try row["subcategory"], fingerprint: try row["fingerprint"],
                processorReference: try row["processor_reference"]
            )
        }
        return StoredFinancialConnectionsSession(
            id: try row["id"], accountID: try row["account_id"], created: try row["created"], customer: try row["customer_id"],
            setupIntent: try row["setup_intent_id"], uniqueID: try row["unique_id"], hostedSurface: try row["hosted_surface"],
            status: status, appID: try row["app_id"], linkedAccount: linked,
            link: try StoredJSON.decodeIfPresent(FinancialConnectionsLink.self, from: try row["link_options"]) ?? FinancialConnectionsLink()
        )
    }
}
