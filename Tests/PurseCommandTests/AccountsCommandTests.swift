import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("purse accounts and purse keys")
struct AccountsCommandTests {
    @Test func createAccountsAndRotateKeys() async throws {
        try await TestPostgres.withEmptyDatabase { database in
            let folder = try TestFolder.make("accounts")
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = ["DATABASE_URL": database.url, "PURSE_DATA_DIR": folder.path]
            let purse = { (arguments: [String]) async throws -> CommandRun in
                try await CommandRun.run(PurseBinary.path, arguments, environment: environment)
            }
            // An external database must be migrated first, and the commands say so.
            let early = try await purse(["accounts", "create", "--name", "Shop"])
            #expect(early.status != 0)
            #expect(early.standardError.contains("purse migrate"))
            #expect(try await purse(["migrate"]).status == 0)

            let created = try await purse(["accounts", "create", "--name", "Shop", "--json"])
            #expect(created.status == 0, "\(created.standardError)")
            let json = try JSONReader.parse(created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            let account = try #require(json["account"]?.stringValue)
            #expect(account.hasPrefix("acct_"))
            #expect(json["secret_key"]?.stringValue?.hasPrefix("sk_test_") == true)
            #expect(json["publishable_key"]?.stringValue?.hasPrefix("pk_test_") == true)
            #expect(json.objectValue?.count == 3)

            let human = try await purse(["accounts", "create", "--name", "Other"])
            #expect(human.standardOutput.contains("secret key:"))
            let list = try await purse(["accounts", "list"])
            #expect(list.standardOutput.contains(account) && list.standardOutput.contains("Other"))

            let extra = try await purse(["keys", "create", "--account", account, "--kind", "secret", "--json"])
            let extraKey = try JSONReader.parse(extra.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            let keyID = try #require(extraKey["id"]?.stringValue)
            let keys = try await purse(["keys", "list", "--account", account, "--json"])
            let listed = try #require(try JSONReader.parse(keys.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)).arrayValue)
            #expect(listed.count == 3)
            #expect(!keys.standardOutput.contains(extraKey["key"]?.stringValue ?? "-"), "listings never show keys")
            #expect(try await purse(["keys", "revoke", keyID]).status == 0)
            let after = try await purse(["keys", "list", "--account", account])
            #expect(after.standardOutput.contains("revoked"))
            let unknown = try await purse(["keys", "create", "--account", "acct_nothing", "--kind", "secret"])
            #expect(unknown.status != 0)
            #expect(unknown.standardError.contains("acct_nothing"))
        }
    }
}
