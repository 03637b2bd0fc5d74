import Foundation
import LocalPostgres
import TestSupport
import Testing

@testable import Postgres

@Suite("Connecting")
struct ConnectionTests {
    @Test func urlsBecomeKeywordParameters() throws {
        let configuration = try PostgresConfiguration(
            connectionString: "postgres://app%40x:p%2Fss@db.example:6543/purse?sslmode=disable&connect_timeout=2"
        )
        #expect(configuration.value(for: "user") == "app@x")
        #expect(configuration.value(for: "password") == "p/ss")
        #expect(configuration.value(for: "host") == "db.example")
        #expect(configuration.value(for: "port") == "6543")
        #expect(configuration.value(for: "dbname") == "purse")
        #expect(configuration.value(for: "sslmode") == "disable")
        #expect(configuration.value(for: "connect_timeout") == "2")
        #expect(!configuration.description.contains("p/ss"))
    }

    @Test func aVanishedServerIsNoticedByDefaultUnlessTheURLSaysOtherwise() async throws {
        let defaults = try PostgresConfiguration(connectionString: "postgres://u@db.example/purse")
        #expect(defaults.value(for: "keepalives_idle") == "30")
        #expect(defaults.value(for: "keepalives_interval") == "10")
        #expect(defaults.value(for: "keepalives_count") == "3")
        #expect(defaults.value(for: "tcp_user_timeout") == "30000")
        let chosen = try PostgresConfiguration(connectionString: "postgres://u@db.example/purse?keepalives_idle=5&tcp_user_timeout=0")
        #expect(chosen.value(for: "keepalives_idle") == "5")
        #expect(chosen.value(for: "tcp_user_timeout") == "0")
        // libpq accepts them all: a connection with the defaults opens.
        let connection = try await PostgresConnection.connect(configuration: TestPostgres.serverConfiguration())
        connection.close()
    }

    @Test func theHeartbeatPassesAndKeepsNotificationsThatArriveMeanwhile() async throws {
        let configuration = try TestPostgres.serverConfiguration()
        let listener = try await PostgresConnection.connect(configuration: configuration)
        let sender = try await PostgresConnection.connect(configuration: configuration)
        try await listener.simpleQuery("LISTEN heartbeat_test")
        try await sender.simpleQuery("NOTIFY heartbeat_test, 'during'")
        try await listener.checkAlive(within: .seconds(5))
        #expect(try await listener.notifications(waitingUpTo: .seconds(5)).map(\.payload) == ["during"])
        #expect(listener.isInTransaction == false)
        listener.close()
        sender.close()
    }

    @Test func theHeartbeatFailsWhenTheServerStopsAnswering() async throws {
        var configuration = try TestPostgres.serverConfiguration()
        let proxy = try SilenceableProxy(upstreamPort: try #require(configuration.value(for: "port").flatMap { Int($0) }))
        defer { proxy.stop() }
        configuration.set("host", "127.0.0.1")
        configuration.set("port", String(proxy.port))
        let connection = try await PostgresConnection.connect(configuration: configuration)
        try await connection.checkAlive(within: .seconds(5))
        proxy.silence()
        let error = await #expect(throws: PGError.self) { try await connection.checkAlive(within: .seconds(1)) }
        #expect(error?.kind == .connectionFailed)
        connection.close()
    }

    @Test func multiHostURLsAndKeywordStringsAreTakenAsLibpqTakesThem() throws {
        let url = try PostgresConfiguration(
            connectionString: "postgresql://purse:pw@db1.example:5432,db2.example:5433/purse?target_session_attrs=read-write&sslmode=require"
        )
        #expect(url.value(for: "host") == "db1.example,db2.example")
        #expect(url.value(for: "port") == "5432,5433")
        #expect(url.value(for: "target_session_attrs") == "read-write")
        #expect(url.value(for: "sslmode") == "require")
        #expect(url.value(for: "dbname") == "purse")
        let keywords = try PostgresConfiguration(
            connectionString: "host=db1.example,db2.example port=5432 dbname=purse user=purse password='p w' target_session_attrs=primary"
        )
        #expect(keywords.value(for: "host") == "db1.example,db2.example")
        #expect(keywords.value(for: "password") == "p w")
        #expect(keywords.value(for: "target_session_attrs") == "primary")
        #expect(keywords.value(for: "keepalives_idle") == "30", "Purse's defaults apply to both forms")
        #expect(!keywords.description.contains("p w"))
    }

    /// libpq tries the hosts in turn: the first refuses, the second answers.
    @Test func aMultiHostURLReachesTheHostThatAnswers() async throws {
        let live = try TestPostgres.serverConfiguration()
        let refusing = LocalCluster.ephemeralPort() ?? 1
        var configuration = try PostgresConfiguration(
            connectionString: "postgres://127.0.0.1:\(refusing),127.0.0.1:\(live.value(for: "port") ?? "")/postgres?target_session_attrs=read-write"
        )
        for keyword in ["user", "password", "dbname"] { if let value = live.value(for: keyword) { configuration.set(keyword, value) } }
        let connection = try await PostgresConnection.connect(configuration: configuration)
        try await connection.simpleQuery("SELECT 1")
        connection.close()
    }

    @Test(arguments: ["mysql://u@h/db", "not a url", "postgres://u@h/db?sslmode", "postgres://u@h/db?no_such_keyword=1", "host=h port"])
    func badURLsAreRefusedClearly(url: String) {
        let error = #expect(throws: PGError.self) { try PostgresConfiguration(connectionString: url) }
        #expect(error?.kind == .invalidConfiguration)
    }

    @Test func aRefusedConnectionSaysSo() async throws {
        let port = LocalCluster.ephemeralPort() ?? 1
        let configuration = try PostgresConfiguration(connectionString: "postgres://postgres@127.0.0.1:\(port)/postgres")
        let error = await #expect(throws: PGError.self) { try await PostgresConnection.connect(configuration: configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.isUnavailable == true)
        #expect(error?.message.contains("refused") == true)
    }

    @Test func aWrongPasswordSaysSoWithoutTheSecret() async throws {
        var configuration = try TestPostgres.serverConfiguration()
        configuration.set("password", "definitely-wrong-7731")
        let error = await #expect(throws: PGError.self) { try await PostgresConnection.connect(configuration: configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.contains("password authentication failed") == true)
        #expect(error?.message.contains("definitely-wrong-7731") == false)
    }

    @Test func closeIsSafeTwice() async throws {
        let connection = try await PostgresConnection.connect(configuration: TestPostgres.serverConfiguration())
        #expect(connection.isUsable)
        connection.close()
        connection.close()
        #expect(!connection.isUsable)
        await #expect(throws: PGError.self) { try await connection.query("SELECT 1") }
    }
}
