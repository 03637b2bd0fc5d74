import Foundation
import Postgres
import TestSupport
import Testing

@Suite("purse migrate")
struct MigrateCommandTests {
    @Test func bringsAnEmptyDatabaseToTheCurrentSchemaAndIsIdempotent() async throws {
        try await TestPostgres.withEmptyDatabase { database in
            let url = database.url

            let first = try await CommandRun.run(PurseBinary.path, ["migrate", "--database-url", url])
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("Applied"))

            // The same again, through DATABASE_URL: nothing left to do.
            let second = try await CommandRun.run(PurseBinary.path, ["migrate"], environment: ["DATABASE_URL": url])
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.standardOutput.contains("current"))

            let client = PostgresClient(configuration: database.configuration)
            let rows = try await client.query("SELECT to_regclass('accounts') IS NOT NULL AS present")
            #expect(try rows[0]["present", as: Bool.self])
            await client.close()
        }
    }

    @Test func aBadURLIsAClearErrorNotACrash() async throws {
        let run = try await CommandRun.run(PurseBinary.path, ["migrate", "--database-url", "mysql://nope"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("postgres://"))
    }
}
