import Foundation
import LocalPostgres
import TestSupport
import Testing

@testable import Postgres

/// The connection layer over TLS, as a managed PostgreSQL requires. Over TLS part of an answer
/// can sit decrypted in OpenSSL, where the socket no longer reports it; every wait on a socket
/// (a lone statement's, a listener's, the heartbeat's) first reads what OpenSSL holds.
@Suite("TLS")
struct TLSTests {
    @Test func loneStatementsNotificationsAndTheHeartbeatWorkOverTLS() async throws {
        let cluster = try await TestPostgres.startThrowawayCluster(serverSettings: ["ssl": "on"]) { cluster in
            try Self.makeCertificate(in: cluster.dataDirectory)
        }
        defer { TestPostgres.destroy(cluster) }
        var requiringTLS = try cluster.configuration()
        requiringTLS.set("sslmode", "require")
        let configuration = requiringTLS
        let client = PostgresClient(configuration: configuration, options: .init(maxConnections: 2))
        let encrypted = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        #expect(try encrypted[0]["ssl", as: Bool.self])

        // Answers of every size up to several TLS records, each read as the socket allows; each
        // must arrive within seconds, not hang.
        var generator = SplitMix64(seed: 11)
        for _ in 0..<150 {
            let size = Int.random(in: 0...120_000, using: &generator)
            let rows = try await Self.within(.seconds(20)) {
                try await client.query("SELECT repeat('x', \(size)::int) AS text")
            }
            #expect(try rows[0]["text", as: String.self].utf8.count == size)
        }

        let listener = try await PostgresConnection.connect(configuration: configuration)
        let sender = try await PostgresConnection.connect(configuration: configuration)
        try await listener.simpleQuery("LISTEN tls_test")
        try await listener.checkAlive(within: .seconds(5))
        let payloads = (0..<20).map { String(repeating: "p", count: 7_000 + $0) }
        // Committed together, they arrive in one burst of many TLS records.
        try await Self.notifyTogether(payloads, on: sender)
        var received: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while received.count < payloads.count, ContinuousClock.now < deadline {
            received += try await listener.notifications(waitingUpTo: .milliseconds(500)).map(\.payload)
        }
        #expect(received == payloads)
        listener.close()
        sender.close()
        await client.close()
    }

    private static func notifyTogether(_ payloads: [String], on sender: PostgresConnection) async throws {
        sender.beginTransaction()
        for payload in payloads { try await sender.query("SELECT pg_notify('tls_test', \(payload))") }
        try await sender.commit()
    }

    /// A self-signed certificate and its key where the server looks for them by default,
    /// owned by whoever owns the data folder (the `postgres` user when tests run as root).
    private static func makeCertificate(in dataDirectory: URL) throws {
        let certificate = dataDirectory.appendingPathComponent("server.crt").path
        let key = dataDirectory.appendingPathComponent("server.key").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-new", "-x509", "-days", "1", "-nodes", "-subj", "/CN=localhost",
            "-newkey", "rsa:2048", "-keyout", key, "-out", certificate,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw TestSetupError("openssl could not make a certificate") }
        var owner = stat()
        guard stat(dataDirectory.path, &owner) == 0 else { throw TestSetupError("cannot stat the data folder") }
        for path in [certificate, key] {
            guard chown(path, owner.st_uid, owner.st_gid) == 0, chmod(path, 0o600) == 0 else {
                throw TestSetupError("cannot hand \(path) to the server's user")
            }
        }
    }

    /// `work`'s result, or a recorded failure after `limit`. A wait that never ends stays
    /// behind in its own task instead of holding up the test run.
    private static func within<Result: Sendable>(
        _ limit: Duration,
        _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = AsyncStream<Swift.Result<Result, any Error>?>.makeStream()
        Task {
            do {
                outcome.continuation.yield(.success(try await work()))
            } catch {
                outcome.continuation.yield(.failure(error))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            outcome.continuation.yield(nil)
        }
        defer { timer.cancel() }
        for await first in outcome.stream {
            guard let first else { throw TestSetupError("no answer within \(limit)") }
            return try first.get()
        }
        throw TestSetupError("no answer within \(limit)")
    }
}
