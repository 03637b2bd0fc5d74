/// Financial Connections sessions and the accounts linked through them. Writes travel with the
/// unit of work's next round trip.
public protocol FinancialConnectionsRepository {
    func insert(_ session: StoredFinancialConnectionsSession) async throws

    /// A session of `account` (of any account when nil: the test-bank page knows only the id);
    /// with `lock`, its row is locked for the rest of the transaction.
    func find(_ id: String, account: String?, lock: Bool) async throws -> StoredFinancialConnectionsSession?

    /// The session an account was linked through, by the account's id.
    func find(linkedAccount id: String, account: String) async throws -> StoredFinancialConnectionsSession?

    /// Writes what may change of a session: its status, app and linked account.
    func update(_ session: StoredFinancialConnectionsSession) async throws
}
