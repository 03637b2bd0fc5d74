import ArgumentParser
import Foundation
import Testing

@testable import purse

/// `PurseConfiguration`: every key from its flag, else its environment variable, else its default,
/// read in one place.
@Suite("Configuration: flags over the environment over defaults")
struct ConfigurationTests {
    private static func read(_ arguments: [String], _ environment: [String: String] = [:]) throws -> PurseConfiguration {
        let command = try ServeCommand.parse(arguments)
        return try PurseConfiguration.read(command.database, command.options, environment: environment)
    }

    @Test func defaultsWithNothingSet() throws {
        let configuration = try Self.read([])
        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.server.port == 4242)
        #expect(configuration.server.maxBodySize == 1_048_576)
        #expect(configuration.server.rateLimit == nil)
        #expect(configuration.server.webhooks.retrySchedule == [5, 30, 120, 600, 3600, 10_800])
        #expect(configuration.poolSize == 8)
        #expect(configuration.poolTimeout == .seconds(5))
        #expect(configuration.statementTimeout == .seconds(10))
        #expect(!configuration.skipMigrations)
        #expect(configuration.storage.databaseURL == nil)
        #expect(configuration.storage.dataDirectory.lastPathComponent == ".purse")
        #expect(configuration.storage.masterKeyFile == configuration.storage.dataDirectory.appendingPathComponent("master.key"))
    }

    @Test func aFlagWinsOverItsVariableWhichWinsOverTheDefault() throws {
        let environment = [
            "PURSE_PORT": "5000", "PURSE_POOL_SIZE": "3", "PURSE_HOST": "0.0.0.0", "DATABASE_URL": "postgres://env@db/purse",
            "PURSE_RATE_LIMIT": "10", "PURSE_SKIP_MIGRATIONS": "yes", "PURSE_DATA_DIR": "/srv/purse",
        ]
        let fromEnvironment = try Self.read([], environment)
        #expect(fromEnvironment.server.port == 5000)
        #expect(fromEnvironment.poolSize == 3)
        #expect(fromEnvironment.server.host == "0.0.0.0")
        #expect(fromEnvironment.server.rateLimit == .init(rate: 10, burst: 20), "the burst defaults to twice the rate")
        #expect(fromEnvironment.skipMigrations)
        #expect(fromEnvironment.storage.databaseURL == "postgres://env@db/purse")
        #expect(fromEnvironment.storage.masterKeyFile.path == "/srv/purse/master.key")

        let flagged = try Self.read(["--port", "6000", "--pool-size", "5", "--database-url", "postgres://flag@db/purse"], environment)
        #expect(flagged.server.port == 6000)
        #expect(flagged.poolSize == 5)
        #expect(flagged.storage.databaseURL == "postgres://flag@db/purse")
        #expect(flagged.server.host == "0.0.0.0", "what no flag sets still comes from the environment")
    }

    @Test func anEmptyVariableCountsAsUnset() throws {
        let configuration = try Self.read([], ["PURSE_PORT": "", "DATABASE_URL": "", "PURSE_WEBHOOK_REQUIRE_HTTPS": ""])
        #expect(configuration.server.port == 4242)
        #expect(configuration.storage.databaseURL == nil)
        #expect(!configuration.server.webhooks.requireHTTPS)
    }

    @Test func anUnusableValueNamesItsVariable() {
        #expect(throws: ValidationError.self) { try Self.read([], ["PURSE_PORT": "http"]) }
        let error = #expect(throws: ValidationError.self) { try Self.read([], ["PURSE_POOL_TIMEOUT": "-1"]) }
        #expect(error?.message.contains("PURSE_POOL_TIMEOUT") == true)
        #expect(throws: ValidationError.self) { try Self.read(["--tls-certificate", "/x.pem"]) }
    }

    @Test func theDescriptionRedactsSecrets() throws {
        let configuration = try Self.read(
            [], ["DATABASE_URL": "postgres://purse:hunter2@db/purse", "PURSE_MASTER_KEY": String(repeating: "ab", count: 32)]
        )
        let text = configuration.description
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("abab"))
        #expect(text.contains("postgres://purse:redacted@db/purse"))
    }
}
