import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("purse serve shuts down gracefully")
struct ShutdownTests {
    @Test(.timeLimit(.minutes(2)))
    func sigtermLetsARequestInFlightFinish() async throws {
        try await TestPostgres.withEmptyDatabase { database in
            let folder = try TestFolder.make("drain")
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment: [String: String?] = ["DATABASE_URL": database.url, "PURSE_DATA_DIR": folder.path]
            let server = try await ServeProcess.start(in: folder, environment: environment)
            let created = try await CommandRun.run(
                PurseBinary.path, ["accounts", "create", "--name", "Drain", "--json"],
                environment: environment.compactMapValues { $0 }
            )
            #expect(created.status == 0, "\(created.standardError)")
            let key = try #require(try JSONReader.parse(created.standardOutput)["secret_key"]?.stringValue)

            // A request whose body arrives slowly is in flight when SIGTERM comes.
            let body = "name=Slow+Request"
            let connection = try await RawHTTPConnection.open(port: server.port)
            try await connection.write(
                "POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                    + body.prefix(5)
            )
            try await Task.sleep(for: .milliseconds(300))
            server.signal(SIGTERM)
            try await Task.sleep(for: .milliseconds(500))
            try await connection.write(String(body.dropFirst(5)))
            let response = try await connection.response()
            #expect(response.status == 200)
            #expect(response.body.contains("Slow Request"))
            #expect(try await server.waitForExit() == 0)
            #expect(server.output.contains("Purse stopped"))
        }
    }
}
