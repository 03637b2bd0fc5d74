public import Postgres
public import PurseCore

/// ``Database`` on PostgreSQL: each unit of work is one pooled connection, its repositories the
/// `Postgres…Repository` types running their statements on it. Errors the domain has an answer
/// for leave it as ``DatabaseError``s.
public struct PostgresDatabase: Database {
    private let pool: PostgresClient

    /// The enclosing transaction the current task runs in, if any.
    @TaskLocal private static var enclosing: EnclosingTransaction?

    public init(pool: PostgresClient) {
        self.pool = pool
    }

    public func transaction<Result: Sendable>(
        retryingConflicts retries: Int,
        _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await inTransaction(retryingConflicts: retries, enclosing: false, body)
    }

    public func autocommit<Result: Sendable>(_ body: @Sendable (Repositories) async throws -> Result) async throws -> Result {
        if let enclosing = Self.enclosing { return try await Self.joining(enclosing, body) }
        return try await Self.translatingErrors {
            try await pool.withConnection { connection in
                try await body(Self.repositories(on: connection))
            }
        }
    }

    public func enclosingTransaction<Result: Sendable>(
        retryingConflicts retries: Int,
        _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await inTransaction(retryingConflicts: retries, enclosing: true, body)
    }

    /// `body` in a transaction of its own, which the units of work asked for inside it join when
    /// `enclosing`; inside an enclosing transaction, a savepoint of that one.
    private func inTransaction<Result: Sendable>(
        retryingConflicts retries: Int, enclosing opensEnclosing: Bool, _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        if let enclosing = Self.enclosing { return try await Self.joining(enclosing, body) }
        return try await Self.translatingErrors {
            try await pool.withTransaction(retryingConflicts: retries) { connection in
                guard opensEnclosing else { return try await body(Self.repositories(on: connection)) }
                return try await Self.$enclosing.withValue(EnclosingTransaction(connection)) {
                    try await body(Self.repositories(on: connection))
                }
            }
        }
    }

    /// A unit of work inside the enclosing transaction on `connection`: a savepoint of it. Its
    /// errors leave untranslated, so a conflict reaches the enclosing transaction's retries; the
    /// enclosing transaction translates what it ends with.
    private static func joining<Result: Sendable>(
        _ enclosing: EnclosingTransaction, _ body: @Sendable (Repositories) async throws -> Result
    ) async throws -> Result {
        try await enclosing.connectionForCurrentTask().withSavepoint { connection in
            try await body(repositories(on: connection))
        }
    }

    /// Runs `work`, throwing its PostgreSQL errors as ``DatabaseError``s where the domain has an
    /// answer for them: around the pool's retries, so a conflict is a refusal only once they gave up.
    private static func translatingErrors<Result>(_ work: () async throws -> Result) async throws -> Result {
        do {
            return try await work()
        } catch let error as PGError {
            guard let translated = error.databaseError else { throw error }
            throw translated
        }
    }

    /// The repositories of a unit of work already open on `connection`.
    static func repositories(on connection: PostgresConnection) -> Repositories {
        Repositories(
            accounts: PostgresAccountRepository(connection: connection),
            billingPortal: PostgresBillingPortalRepository(connection: connection),
            customerCredentials: PostgresCustomerCredentialRepository(connection: connection),
            customers: PostgresCustomerRepository(connection: connection),
            events: PostgresEventRepository(connection: connection),
            financialConnections: PostgresFinancialConnectionsRepository(connection: connection),
            idempotency: PostgresIdempotencyRepository(connection: connection),
            masterKeySeals: PostgresMasterKeySealRepository(connection: connection),
            paymentMethods: PostgresPaymentMethodRepository(connection: connection),
            setupIntents: PostgresSetupIntentRepository(connection: connection),
            sheetSettings: PostgresSheetSettingsRepository(connection: connection),
            testClocks: PostgresTestClockRepository(connection: connection),
            webhooks: PostgresWebhookRepository(connection: connection)
        )
    }
}
