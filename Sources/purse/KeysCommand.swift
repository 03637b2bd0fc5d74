import ArgumentParser
import Foundation
import PurseCore
import PursePostgres

/// `purse keys create|list|revoke`: several keys may be live at once, so a key can be rotated
/// with overlap.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and revoke an account's API keys.",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case secret, publishable
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and print it (shown only this once).")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The account (acct_...).") var account: String
        @Option(help: "secret or publishable.") var kind: Kind
        @Flag(help: "Print one JSON object {id, kind, key}.") var json = false

        func run() async throws {
            let created = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await AccountService(database: PostgresDatabase(pool: session.pool)).createKey(
                    account: account, kind: kind == .secret ? .secret : .publishable
                )
            }
            if json {
                Output.json(["id": created.info.id, "kind": created.info.kind.rawValue, "key": created.key])
            } else {
                print("\(created.info.kind.rawValue) key \(created.info.id): \(created.key)")
                print("The key is shown only now: Purse keeps nothing but its hash.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an account's keys (never the keys themselves).")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The account (acct_...).") var account: String
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let keys = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await AccountService(database: PostgresDatabase(pool: session.pool)).listKeys(account: account)
            }
            if json {
                Output.json(
                    keys.map {
                        ["id": $0.id, "kind": $0.kind.rawValue, "last4": $0.last4, "created": $0.created, "revoked": $0.isRevoked]
                    })
            } else {
                for key in keys {
                    print("\(key.id)  \(key.kind.rawValue)  …\(key.last4)\(key.isRevoked ? "  revoked" : "")")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key; requests with it fail at once.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The key's id (key_...).") var id: String

        func run() async throws {
            let key = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await AccountService(database: PostgresDatabase(pool: session.pool)).revokeKey(id: id)
            }
            print("Revoked \(key.kind.rawValue) key \(key.id) (…\(key.last4)).")
        }
    }
}
