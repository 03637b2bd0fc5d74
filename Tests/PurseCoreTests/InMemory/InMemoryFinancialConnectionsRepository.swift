import PurseModels

@testable import PurseCore

/// ``FinancialConnectionsRepository`` on ``InMemoryDatabase``, with the table's constraints: its
/// foreign keys to customers and setup intents, a linked account exactly when succeeded, and
/// unique linked-account ids.
struct InMemoryFinancialConnectionsRepository: FinancialConnectionsRepository {
    let database: InMemoryDatabase

    func insert(_ session: StoredFinancialConnectionsSession) async throws {
        try await database.write { state in
            guard state.financialConnectionsSessions[session.id] == nil else {
                throw InMemoryDatabaseError.constraint("financial_connections_sessions_pkey")
            }
            if let customer = session.customer, state.customers[customer] == nil {
                throw InMemoryDatabaseError.constraint("financial_connections_sessions_customer_id_fkey")
            }
            if let intent = session.setupIntent, state.setupIntents[intent] == nil {
                throw InMemoryDatabaseError.constraint("financial_connections_sessions_setup_intent_id_fkey")
            }
            try Self.check(session, in: state)
            state.financialConnectionsSessions[session.id] = session
        }
    }

    func find(_ id: String, account: String?, lock: Bool) async throws -> StoredFinancialConnectionsSession? {
        await database.read { state in
            guard let session = state.financialConnectionsSessions[id], account == nil || session.accountID == account else { return nil }
            return session
        }
    }

    func find(linkedAccount id: String, account: String) async throws -> StoredFinancialConnectionsSession? {
        await database.read { state in
            state.financialConnectionsSessions.values.first { $0.linkedAccount?.id == id && $0.accountID == account }
        }
    }

    func update(_ session: StoredFinancialConnectionsSession) async throws {
        try await database.write { state in
            guard var row = state.financialConnectionsSessions[session.id], row.accountID == session.accountID else { return }
            try Self.check(session, in: state)
            row.status = session.status
            row.appID = session.appID
            row.linkedAccount = session.linkedAccount
            state.financialConnectionsSessions[session.id] = row
        }
    }

    private static func check(_ session: StoredFinancialConnectionsSession, in state: InMemoryState) throws {
        guard (session.status == .succeeded) == (session.linkedAccount != nil) else {
            throw InMemoryDatabaseError.constraint("financial_connections_sessions_check")
        }
        if let linked = session.linkedAccount,
            state.financialConnectionsSessions.values.contains(where: { $0.id != session.id && $0.linkedAccount?.id == linked.id })
        {
            throw InMemoryDatabaseError.constraint("financial_connections_sessions_linked_account_id_key")
        }
    }
}
