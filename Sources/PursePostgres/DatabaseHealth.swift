public import Postgres

/// Whether the database can serve requests: reachable, with the schema this binary expects.
public struct DatabaseHealth: Sendable {
    public enum Readiness: Sendable, Equatable {
        case ready
        case unreachable
        case schemaBehind(pending: [Int])
    }

    private let pool: PostgresClient
    private let migrator: Migrator

    public init(pool: PostgresClient) throws {
        self.pool = pool
        self.migrator = try Schema.migrator()
    }

    public func readiness() async -> Readiness {
        do {
            let status = try await migrator.status(pool)
            return status.isCurrent ? .ready : .schemaBehind(pending: status.pending)
        } catch {
            return .unreachable
        }
    }
}
