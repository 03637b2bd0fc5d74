import Foundation
import TestSupport
import Testing

@testable import Postgres

@Suite("Connecting")
struct ConnectionTests {
    @Test func urlsBecomeKeywordParameters() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://app%40x:p%2Fss@db.example:6543/purse?sslmode=disable&connect_timeout=2"
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

    @Test(arguments: ["mysql://u@h/db", "not a url", "postgres://u@h/a/b", "postgres://u@h/db?sslmode"])
    func badURLsAreRefusedClearly(url: String) {
        let error = #expect(throws: PGError.self) { try PostgresConfiguration(url: url) }
        #expect(error?.kind == .invalidConfiguration)
    }

    @Test func aRefusedConnectionSaysSo() throws {
        let port = LocalCluster.ephemeralPort() ?? 1
        let configuration = try PostgresConfiguration(url: "postgres://postgres@127.0.0.1:\(port)/postgres")
        let error = #expect(throws: PGError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.isUnavailable == true)
        #expect(error?.message.contains("refused") == true)
    }

    @Test func aWrongPasswordSaysSoWithoutTheSecret() throws {
        var configuration = try TestPostgres.serverConfiguration()
        configuration.set("password", "definitely-wrong-7731")
        let error = #expect(throws: PGError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.contains("password authentication failed") == true)
        #expect(error?.message.contains("definitely-wrong-7731") == false)
    }

    @Test func closeIsSafeTwice() throws {
        let connection = try PostgresConnection(configuration: TestPostgres.serverConfiguration())
        #expect(connection.isUsable)
        connection.close()
        connection.close()
        #expect(!connection.isUsable)
        #expect(throws: PGError.self) { try connection.query("SELECT 1") }
    }
}
