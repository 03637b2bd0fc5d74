import ArgumentParser
import Foundation
import Logging
import PurseCore
import PursePostgres

/// `purse accounts create|list`.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "Create and list accounts.",
        subcommands: [Create.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account and print its secret and publishable keys (shown only this once)."
        )

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The account's name.") var name: String
        @Flag(help: "Print one JSON object {account, secret_key, publishable_key} and nothing else.") var json = false

        func run() async throws {
            let created = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await AccountService(database: PostgresDatabase(pool: session.pool)).createAccount(name: name)
            }
            if json {
                Output.json([
                    "account": created.account.id,
                    "secret_key": created.secretKey.key,
                    "publishable_key": created.publishableKey.key,
                ])
            } else {
                print(
                    """
                    Account \(created.account.id) (\(created.account.name))
                      secret key:      \(created.secretKey.key)
                      publishable key: \(created.publishableKey.key)
                    The keys are shown only now: Purse keeps nothing but their hashes.
                    """)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")

        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let accounts = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await AccountService(database: PostgresDatabase(pool: session.pool)).listAccounts()
            }
            if json {
                Output.json(accounts.map { ["id": $0.id, "name": $0.name, "created": $0.created, "development": $0.isDevelopment] })
            } else {
                for account in accounts {
                    print("\(account.id)  \(account.name)\(account.isDevelopment ? "  (development)" : "")")
                }
            }
        }
    }
}
