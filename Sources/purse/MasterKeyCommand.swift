import ArgumentParser
import Foundation
import PurseCore
import PursePostgres

/// `purse master-key add|retire|list`: changing the master key while instances serve
/// (docs/operations.md, "Rotating the master key"). Each runs with a key the database accepts,
/// given as every subcommand takes it (PURSE_MASTER_KEY or the key file).
struct MasterKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "master-key",
        abstract: "Change the master key while instances serve.",
        discussion: """
            1. purse master-key add --new-key-file new.key   (with the current key): both keys work.
            2. Restart every instance with the new key.
            3. purse master-key retire   (with the new key): the old key opens nothing any more.
            """,
        subcommands: [Add.self, Retire.self, List.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a new master key open the secrets root too (run with the current key)."
        )

        @OptionGroup var database: DatabaseOptions
        @Option(help: "A file holding the new key: 64 hex characters (openssl rand -hex 32).") var newKeyFile: String

        func run() async throws {
            let newKey: MasterKey
            do {
                newKey = try MasterKey(text: try String(contentsOfFile: newKeyFile, encoding: .utf8))
            } catch {
                throw CommandError("The new key file \(newKeyFile) is not usable. \(error)")
            }
            let keyID = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await MasterKeyService(database: PostgresDatabase(pool: session.pool))
                    .addKey(newKey, current: session.workspace.masterKey)
            }
            print("The master key \(keyID) is accepted. Restart every instance with it, then run `purse master-key retire` with it.")
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop accepting every master key but the one this runs with."
        )

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let retired = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                try await MasterKeyService(database: PostgresDatabase(pool: session.pool))
                    .retireOtherKeys(current: session.workspace.masterKey)
            }
            print(retired.isEmpty ? "No other master key was accepted." : "Retired the master keys \(retired.joined(separator: ", ")).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the ids of the master keys the database accepts.")

        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let (keys, own) = try await DatabaseSession.run(PurseConfiguration.readStorage(database)) { session in
                (
                    try await MasterKeyService(database: PostgresDatabase(pool: session.pool)).acceptedKeys(),
                    MasterKeySeal.keyID(of: session.workspace.masterKey)
                )
            }
            if json {
                Output.json(keys.map { ["id": $0.keyID, "created": $0.created, "configured": $0.keyID == own] })
            } else {
                for key in keys {
                    let added = Date(timeIntervalSince1970: TimeInterval(key.created)).formatted(.iso8601)
                    print("\(key.keyID)  added \(added)\(key.keyID == own ? "  (the key this ran with)" : "")")
                }
            }
        }
    }
}
