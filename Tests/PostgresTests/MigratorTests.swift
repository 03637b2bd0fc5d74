import TestSupport
import Testing

@testable import Postgres

@Suite("Migrations")
struct MigratorTests {
    let migrations = [
        Migration(version: 1, name: "first", sql: "CREATE TABLE one (id int); INSERT INTO one VALUES (1);"),
        Migration(version: 2, name: "second", sql: "CREATE TABLE two (id int); SELECT pg_sleep(0.2);"),
        Migration(version: 3, name: "third", sql: "ALTER TABLE one ADD COLUMN note text;"),
    ]

    @Test func appliesEachOnceInOrderAndIsIdempotent() async throws {
        try await TestPostgres.withDatabase { client in
            let migrator = try Migrator(migrations: migrations.reversed())
            #expect(try await migrator.status(client).pending == [1, 2, 3])
            #expect(try await migrator.migrate(client) == [1, 2, 3])
            #expect(try await migrator.migrate(client) == [])
            let status = try await migrator.status(client)
            #expect(status.isCurrent && status.applied == [1, 2, 3] && status.unknown.isEmpty)
            let rows = try await client.query("SELECT count(*) AS n FROM one")
            #expect(try rows[0]["n", as: Int.self] == 1)
        }
    }

    @Test func aNewMigrationIsAppliedOnTopOfOldOnes() async throws {
        try await TestPostgres.withDatabase { client in
            try await Migrator(migrations: Array(migrations.prefix(2))).migrate(client)
            #expect(try await Migrator(migrations: migrations).status(client).pending == [3])
            #expect(try await Migrator(migrations: migrations).migrate(client) == [3])
            // An older binary sees a version it does not know.
            #expect(try await Migrator(migrations: Array(migrations.prefix(2))).status(client).unknown == [3])
        }
    }

    @Test func concurrentRunnersApplyEachMigrationOnce() async throws {
        try await TestPostgres.withDatabase { client in
            let migrator = try Migrator(migrations: migrations)
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 { group.addTask { try await migrator.migrate(client) } }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(applied.sorted() == [1, 2, 3])
            let rows = try await client.query("SELECT count(*) AS n FROM schema_migrations")
            #expect(try rows[0]["n", as: Int.self] == 3)
        }
    }

    @Test func aFailingMigrationLeavesNothingBehind() async throws {
        try await TestPostgres.withDatabase { client in
            let broken = migrations + [Migration(version: 4, name: "broken", sql: "CREATE TABLE four (id int); SELECT nope;")]
            let error = await #expect(throws: MigrationError.self) { try await Migrator(migrations: broken).migrate(client) }
            #expect(error?.version == 4)
            let rows = try await client.query("SELECT to_regclass('four') IS NULL AS absent")
            #expect(try rows[0]["absent", as: Bool.self])
            #expect(try await Migrator(migrations: broken).status(client).pending == [4])
        }
    }

    @Test func duplicateVersionsAndBadNamesAreRefused() {
        #expect(throws: PGError.self) {
            try Migrator(migrations: [migrations[0], Migration(version: 1, name: "again", sql: "")])
        }
        #expect(throws: PGError.self) { try Migration(fileName: "accounts.sql", sql: "") }
        #expect(try! Migration(fileName: "0012_webhook_endpoints.sql", sql: "").version == 12)
    }
}
