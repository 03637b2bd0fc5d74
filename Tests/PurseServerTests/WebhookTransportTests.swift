import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PurseCore
@testable import PurseServer

@Suite("Webhook transport")
struct WebhookTransportTests {
    /// An endpoint that answers its headers at once and then trickles its body never idles long
    /// enough for a per-read timeout: the attempt still ends at its timeout, or the delivery's
    /// claim would run out and the same event be sent again while this attempt still runs.
    @Test func anAttemptEndsAtItsTimeoutHoweverSlowlyTheAnswerTrickles() async throws {
        let endpoint = try TricklingEndpoint()
        defer { endpoint.stop() }
        let transport = WebhookTransport(timeout: .seconds(2))
        let attempt = WebhookDeliveryStore.Attempt(
            delivery: 1, accountID: "acct_1", endpointID: "we_1", eventID: "evt_1",
            url: "http://127.0.0.1:\(endpoint.port)/hook", secret: "whsec_test", body: Array("{}".utf8),
            previousAttempts: 0, eventCreated: 0
        )
        let started = ContinuousClock.now
        let outcome = await transport.send(attempt)
        #expect(ContinuousClock.now - started < .seconds(6))
        #expect(outcome.failure == .timeout)
        #expect(!outcome.succeeded)
    }
}

/// Accepts one connection at a time, reads the request, answers `200` headers with a long
/// Content-Length, then sends one byte of the body every 200 ms for a minute.
private final class TricklingEndpoint: Sendable {
    let port: Int
    private let listener: Int32
    private let stopped = Atomic(false)

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 4) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw TestSetupError("the endpoint could not listen") }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            send(connection, "HTTP/1.1 200 OK\r\nContent-Length: 300\r\nContent-Type: text/plain\r\n\r\n")
            for _ in 0..<300 where !stopped.load(ordering: .relaxed) {
                guard send(connection, "x") else { break }
                usleep(200_000)
            }
            close(connection)
        }
    }

    @discardableResult
    private func send(_ connection: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) } == bytes.count
    }
}
