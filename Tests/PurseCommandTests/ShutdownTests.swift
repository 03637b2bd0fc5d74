import Foundation
import PurseModels
import TestSupport
import Testing

@Suite("purse serve shuts down gracefully")
struct ShutdownTests {
    @Test(.scaledTimeLimit(minutes: 5))
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

@Suite("purse serve stops when it cannot serve")
struct FailedStartTests {
    /// A port already taken fails the HTTP server, and the service group cancels the rest: the
    /// webhook, housekeeping and change-feed loops must end on that too, not only on SIGTERM.
    @Test(.scaledTimeLimit(minutes: 5))
    func aPortInUseEndsTheProcessWithAClearError() async throws {
        try await TestPostgres.withEmptyDatabase { database in
            let folder = try TestFolder.make("port-in-use")
            defer { try? FileManager.default.removeItem(at: folder) }
            let taken = try SilenceableProxy(upstreamPort: 1)
            defer { taken.stop() }
            let error = await #expect(throws: TestSetupError.self) {
                try await ServeProcess.start(
                    in: folder, arguments: ["--port", String(taken.port)],
                    environment: ["DATABASE_URL": database.url, "PURSE_DATA_DIR": folder.path]
                )
            }
            let output = error?.description ?? ""
            #expect(output.contains("exited with status"))
            #expect(output.lowercased().contains("address already in use"), "\(output.suffix(2_000))")
            // One failure reported, not a loop of retries.
            #expect(output.split(separator: "\n").count < 40, "\(output.suffix(2_000))")
        }
    }
}
