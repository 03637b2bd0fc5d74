import Foundation
import LocalPostgres
import Postgres
import TestSupport
import Testing

@Suite("purse serve on the local default", .serialized)
struct ServeCommandTests {
    @Test(.scaledTimeLimit(minutes: 3))
    func startsFromAnEmptyFolderAndAgainWithTheSameMasterKey() async throws {
        let folder = try TestFolder.make("local-default")
        defer { try? FileManager.default.removeItem(at: folder) }

        let first = try await ServeProcess.start(in: folder)
        try await expectReady(first)
        let key = try String(contentsOf: folder.appendingPathComponent(".purse/master.key"), encoding: .utf8)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(".purse/master.key").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        first.signal(SIGTERM)
        #expect(try await first.waitForExit() == 0)
        let cluster = LocalCluster(directory: folder.appendingPathComponent(".purse/postgres"))
        #expect(!cluster.isRunning, "serve stops the cluster it started")

        let second = try await ServeProcess.start(in: folder)
        try await expectReady(second)
        #expect(try String(contentsOf: folder.appendingPathComponent(".purse/master.key"), encoding: .utf8) == key)
        // The development account's keys are printed on every start, the same each time, and work.
        let secretKey = try #require(Self.printedKey("secret key:", in: first.output))
        #expect(Self.printedKey("secret key:", in: second.output) == secretKey)
        #expect(Self.printedKey("publishable key:", in: second.output) == Self.printedKey("publishable key:", in: first.output))
        let customers = try await APIClient(baseURL: second.baseURL, key: secretKey).get("/v1/customers")
        #expect(customers.status == 200)
        second.signal(SIGINT)
        #expect(try await second.waitForExit() == 0)
        #expect(!second.output.contains("Created a new master key"))
    }

    @Test(.scaledTimeLimit(minutes: 3))
    func startsAsANormalUser() async throws {
        let folder = try TestFolder.make("local-default-user")
        defer { try? FileManager.default.removeItem(at: folder) }
        // As root, run it as `nobody` in a folder that user owns; otherwise we already are one.
        let user: String? = getuid() == 0 ? "nobody" : nil
        if let user { try ChildProcess.run("/bin/chown", [user, folder.path]).checked() }

        let server = try await ServeProcess.start(in: folder, as: user)
        try await expectReady(server)
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        let data = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(".purse/postgres/data").path)
        if user != nil { #expect(data[.ownerAccountName] as? String == "nobody") }
    }

    @Test(.scaledTimeLimit(minutes: 2))
    func refusesABadMasterKeyClearly() async throws {
        let folder = try TestFolder.make("bad-key")
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: TestSetupError.self) {
            try await ServeProcess.start(in: folder, environment: ["PURSE_MASTER_KEY": "too-short"])
        }
        #expect(error?.description.contains("64 hex characters") == true)
    }

    @Test func refusesAKeyFileItCannotReadClearly() async throws {
        let folder = try TestFolder.make("unreadable-key")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = folder.appendingPathComponent("master.key")
        try (String(repeating: "ab", count: 32) + "\n").write(to: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: keyFile.path)
        // As root, which reads any file, run it as `nobody`.
        let user: String? = getuid() == 0 ? "nobody" : nil
        if let user { try ChildProcess.run("/bin/chown", [user, folder.path]).checked() }
        let error = await #expect(throws: TestSetupError.self) {
            try await ServeProcess.start(in: folder, arguments: ["--master-key-file", keyFile.path], as: user)
        }
        #expect(error?.description.contains("cannot be read by this user") == true, "\(error?.description ?? "")")
    }

    static func printedKey(_ label: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.contains(label) }?.split(separator: " ").last.map(String.init)
    }

    private func expectReady(_ server: ServeProcess) async throws {
        let ready = try await HTTPCall.send("GET", server.baseURL.appendingPathComponent("readyz"))
        #expect(ready.status == 200, "\(server.output)")
        #expect(ready.header("Request-Id")?.hasPrefix("req_") == true)
    }
}
