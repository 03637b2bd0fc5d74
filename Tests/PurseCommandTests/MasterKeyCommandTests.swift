import Foundation
import PurseModels
import TestSupport
import Testing

/// Rotating the master key while instances serve, as docs/operations.md tells an operator to:
/// `purse master-key add` with the current key, instances restarted with the new one while
/// others still hold the old, then `purse master-key retire` with the new one.
@Suite("purse master-key")
struct MasterKeyCommandTests {
    @Test func theKeyChangesWhileInstancesServeAndNoSecretChangesWithIt() async throws {
        try await TestPostgres.withEmptyDatabase { database in
            let folder = try TestFolder.make("master-key")
            defer { try? FileManager.default.removeItem(at: folder) }
            let (oldKey, newKey, strangerKey) = (Self.randomKey(), Self.randomKey(), Self.randomKey())
            let newKeyFile = folder.appendingPathComponent("new.key")
            try (newKey + "\n").write(to: newKeyFile, atomically: true, encoding: .utf8)
            let environment = { (key: String) in ["DATABASE_URL": database.url, "PURSE_DATA_DIR": folder.path, "PURSE_MASTER_KEY": key] }
            let purse = { (key: String, arguments: [String]) async throws -> CommandRun in
                try await CommandRun.run(PurseBinary.path, arguments, environment: environment(key))
            }
            #expect(try await purse(oldKey, ["migrate"]).status == 0)
            let created = try await purse(oldKey, ["accounts", "create", "--name", "Shop", "--json"])
            let account = try JSONReader.parse(created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            let secretKey = try #require(account["secret_key"]?.stringValue)
            let publishableKey = try #require(account["publishable_key"]?.stringValue)

            let old = try await ServeProcess.start(in: folder, environment: environment(oldKey))
            defer { old.signal(SIGKILL) }
            let oldAPI = APIClient(baseURL: old.baseURL, key: secretKey)
            let customer = try #require(try await oldAPI.post("/v1/customers", "name=Rotation").json["id"]?.stringValue)
            let intent = try await oldAPI.post("/v1/setup_intents", "customer=\(customer)").json
            let intentID = try #require(intent["id"]?.stringValue)
            let clientSecret = try #require(intent["client_secret"]?.stringValue)
            let first = try await oldAPI.post("/v1/customers", "name=Once", headers: ["Idempotency-Key": "rotation-1"])
            #expect(first.status == 200)

            // Another key than the one the database accepts cannot start an instance.
            let refused = await #expect(throws: TestSetupError.self) {
                _ = try await ServeProcess.start(in: folder, environment: environment(strangerKey))
            }
            #expect(refused?.description.contains("not one this database accepts") == true, "\(refused?.description ?? "")")

            let added = try await purse(oldKey, ["master-key", "add", "--new-key-file", newKeyFile.path])
            #expect(added.status == 0, "\(added.standardError)")
            let listed = try await purse(newKey, ["master-key", "list", "--json"])
            let keys = try #require(try JSONReader.parse(listed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)).arrayValue)
            #expect(keys.count == 2)
            #expect(keys.compactMap { $0["configured"]?.boolValue }.filter { $0 }.count == 1, "the new key is the one listed as configured")
            #expect(!listed.standardOutput.contains(newKey) && !listed.standardOutput.contains(oldKey))

            // Old and new instances side by side: the same client secret, the same sealed answer.
            let new = try await ServeProcess.start(in: folder, environment: environment(newKey))
            defer { new.signal(SIGKILL) }
            let newAPI = APIClient(baseURL: new.baseURL, key: secretKey)
            let byClient = try await APIClient(baseURL: new.baseURL, key: publishableKey)
                .get("/v1/setup_intents/\(intentID)", query: "client_secret=\(clientSecret)")
            #expect(byClient.status == 200, "\(String(decoding: byClient.body, as: UTF8.self))")
            let replay = try await newAPI.post("/v1/customers", "name=Once", headers: ["Idempotency-Key": "rotation-1"])
            #expect(replay.status == 200)
            #expect(replay.header("Idempotent-Replayed") == "true")
            #expect(replay.json["id"] == first.json["id"])
            #expect(try await oldAPI.get("/v1/customers/\(customer)").status == 200, "the old instance still serves")

            let retired = try await purse(newKey, ["master-key", "retire"])
            #expect(retired.status == 0, "\(retired.standardError)")
            #expect(try await purse(newKey, ["master-key", "list", "--json"]).standardOutput.components(separatedBy: "\"id\"").count == 2)
            // The retired key starts nothing any more; the new one does.
            await #expect(throws: TestSetupError.self) {
                _ = try await ServeProcess.start(in: folder, environment: environment(oldKey))
            }
            let again = try await purse(oldKey, ["master-key", "add", "--new-key-file", newKeyFile.path])
            #expect(again.status != 0, "a retired key cannot add keys")
            old.signal(SIGTERM)
            #expect(try await old.waitForExit() == 0)
        }
    }

    static func randomKey() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
