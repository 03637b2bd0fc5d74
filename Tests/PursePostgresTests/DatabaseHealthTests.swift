import Postgres
import PursePostgres
import TestSupport
import Testing

/// `/readyz`'s judgement: a reachable database with a current schema is ready only while a write
/// commits, on a primary, within the probe's limit.
@Suite("Database readiness")
struct DatabaseHealthTests {
    @Test func aCurrentSchemaThatCommitsIsReadyAndABehindOneIsNot() async throws {
        try await TestPostgres.withDatabase { client in
            // A limit no commit reaches, even on a machine busy with every other suite (the
            // ThreadSanitizer lane once took over the default 2 s): this test is not about it.
            let health = try DatabaseHealth(pool: client, writeProbeLimit: .seconds(60))
            guard case .schemaBehind = await health.readiness() else {
                Issue.record("an empty database is behind")
                return
            }
            try await Schema.migrator().migrate(client)
            #expect(await health.readiness() == .ready)
        }
    }

    /// A server that takes no writes (as a standby after a failover) is not ready.
    @Test func aReadOnlyServerIsNotReady() async throws {
        try await TestPostgres.withDatabase { client in
            try await Schema.migrator().migrate(client)
            let database = try await client.query("SELECT current_database() AS name")[0]["name", as: String.self]
            try await client.query("ALTER DATABASE \(unsafeSQL: database) SET default_transaction_read_only = on")
            // New sessions only: a fresh pool.
            let readOnly = PostgresClient(configuration: client.configuration, options: .init(maxConnections: 2))
            let readiness = await (try DatabaseHealth(pool: readOnly)).readiness()
            #expect(readiness == .readOnly, "\(readiness)")
            await readOnly.close()
        }
    }

    /// A synchronous standby that never answers: reads work, commits hang; the probe gives up
    /// within its limit and says so.
    @Test func writesWaitingForAnAbsentStandbyAreNotReady() async throws {
        // Test clusters commit asynchronously unless told otherwise; the standby is named later,
        // once the schema is in.
        let cluster = try await TestPostgres.startThrowawayCluster(serverSettings: ["synchronous_commit": "on"])
        defer { TestPostgres.destroy(cluster) }
        // One connection: the probe runs on the session that was seen to have the new setting.
        let client = PostgresClient(configuration: try cluster.configuration(), options: .init(maxConnections: 1))
        try await Schema.migrator().migrate(client)
        try await client.query("ALTER SYSTEM SET synchronous_standby_names = 'absent_standby'")
        try await client.query("SELECT pg_reload_conf()")
        // A session takes a reload when its signal arrives, which on a busy machine is later.
        let reloaded = ContinuousClock.now + .seconds(20)
        while try await client.query("SELECT current_setting('synchronous_standby_names') AS names")[0]["names", as: String.self]
            != "absent_standby"
        {
            guard ContinuousClock.now < reloaded else {
                Issue.record("the session never took the reloaded setting")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let health = try DatabaseHealth(pool: client, writeProbeLimit: .milliseconds(500))
        let readiness = await health.readiness()
        #expect(readiness == .writesNotCommitting, "\(readiness)")
        await client.close()
    }
}
