public import Postgres

/// ``Database`` on PostgreSQL: each unit of work is one pooled connection, its repositories the
/// `Postgres…Repository` types running their statements on it.
public struct PostgresDatabase: Database {
    private let pool: PostgresClient

    public init(pool: PostgresClient) {
        self.pool = pool
    }

    public func transaction<Result: Sendable>(
        retryingConflicts retries: Int,
        _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await pool.withTransaction(retryingConflicts: retries) { connection in
            try await body(Self.repositories(on: connection))
        }
    }

    public func autocommit<Result: Sendable>(_ body: @Sendable (Repositories) async throws -> Result) async throws -> Result {
        try await pool.withConnection { connection in
            try await body(Self.repositories(on: connection))
        }
    }

    /// The repositories of a unit of work already open on `connection`.
    static func repositories(on connection: PostgresConnection) -> Repositories {
        Repositories(
            accounts: PostgresAccountRepository(connection: connection),
            customerCredentials: PostgresCustomerCredentialRepository(connection: connection),
            customers: PostgresCustomerRepository(connection: connection),
            events: PostgresEventRepository(connection: connection),
            idempotency: PostgresIdempotencyRepository(connection: connection),
            paymentMethods: PostgresPaymentMethodRepository(connection: connection),
            setupIntents: PostgresSetupIntentRepository(connection: connection),
            sheetSettings: PostgresSheetSettingsRepository(connection: connection),
            webhooks: PostgresWebhookRepository(connection: connection)
        )
    }
}
