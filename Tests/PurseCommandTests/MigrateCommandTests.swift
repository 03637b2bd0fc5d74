import Foundation
import LocalPostgres
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

    /// The connection string goes to libpq as it is: several hosts tried in turn (the first
    /// refuses here, as a failed primary does), or keyword/value pairs.
    @Test func multiHostURLsAndKeywordStringsWorkInEverySubcommand() async throws {
        try await TestPostgres.withEmptyDatabase { database in
            let folder = try TestFolder.make("multihost")
            defer { try? FileManager.default.removeItem(at: folder) }
            let value = { (keyword: String) in database.configuration.value(for: keyword) ?? "" }
            let refusing = LocalCluster.ephemeralPort() ?? 1
            let multiHost =
                "postgres://\(value("user")):\(value("password"))@127.0.0.1:\(refusing),\(value("host")):\(value("port"))/\(value("dbname"))"
                + "?target_session_attrs=read-write"
            let migrated = try await CommandRun.run(PurseBinary.path, ["migrate", "--database-url", multiHost])
            #expect(migrated.status == 0, "\(migrated.standardError)")
            let keywords =
                "host=127.0.0.1,\(value("host")) port=\(refusing),\(value("port")) dbname='\(value("dbname"))' "
                + "user='\(value("user"))' password='\(value("password"))' target_session_attrs=read-write"
            let created = try await CommandRun.run(
                PurseBinary.path, ["accounts", "create", "--name", "Shop", "--json"],
                environment: ["DATABASE_URL": keywords, "PURSE_DATA_DIR": folder.path]
            )
            #expect(created.status == 0, "\(created.standardError)")
            #expect(created.standardOutput.contains("sk_test_"))
        }
    }

    @Test func aBadURLIsAClearErrorNotACrash() async throws {
        let run = try await CommandRun.run(PurseBinary.path, ["migrate", "--database-url", "mysql://nope"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("postgres://"))
    }
}
