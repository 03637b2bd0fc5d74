import Foundation
import NIOSSL
import Synchronization
import TestSupport
import Testing

@testable import PurseCore
@testable import PurseServer

/// One attempt at a time against real sockets on loopback, without a database: the destination
/// checks, the pinned address, TLS, and every way an attempt can fail.
@Suite("Webhook transport")
struct WebhookTransportTests {
    static let strict = WebhookDestinationPolicy(requireHTTPS: true)

    /// An endpoint that answers its headers at once and then trickles its body never idles long
    /// enough for a per-read timeout: the attempt still ends at its timeout, or the delivery's
    /// claim would run out and the same event be sent again while this attempt still runs.
    @Test func anAttemptEndsAtItsTimeoutHoweverSlowlyTheAnswerTrickles() async throws {
        let endpoint = try RawEndpoint { send, stopped in
            guard send("HTTP/1.1 200 OK\r\nContent-Length: 300\r\nContent-Type: text/plain\r\n\r\n") else { return }
            for _ in 0..<300 where !stopped() {
                guard send("x") else { return }
                usleep(200_000)
            }
        }
        defer { endpoint.stop() }
        let outcome = await Self.transport(timeout: .seconds(2)).send(Self.attempt("http://127.0.0.1:\(endpoint.port)/hook"))
        #expect(outcome.failure == .timeout)
        #expect(outcome.statusCode == nil && !outcome.succeeded)
    }

    @Test func aLookupThatNeverAnswersEndsAtTheTimeout() async throws {
        let resolver = ScriptedResolver(["stuck.example.com": [.hang]])
        let outcome = await Self.transport(resolver: resolver, timeout: .milliseconds(500))
            .send(Self.attempt("https://stuck.example.com/hook"))
        #expect(outcome.failure == .timeout)
        #expect(outcome.durationMs >= 450)
    }

    /// A name that resolves to loopback at delivery (it resolved to a public address when it was
    /// registered: DNS rebinding) is refused before any connection; allowed, the same address is
    /// connected to, so the counter would have seen a connection.
    @Test func aRefusedDestinationIsNeverConnectedTo() async throws {
        try await ConnectionCounter.with { counter in
            let resolver = ScriptedResolver("rebind.example.com", ["127.0.0.1"])
            let url = "https://rebind.example.com:\(counter.port)/hook"
            let refused = await Self.transport(policy: Self.strict, resolver: resolver).send(Self.attempt(url))
            #expect(refused.failure == .destinationNotAllowed)
            #expect(counter.accepted == 0)

            let allowed = WebhookDestinationPolicy(requireHTTPS: true, allowList: try WebhookAllowList(parsing: "127.0.0.1/32"))
            let connected = await Self.transport(policy: allowed, resolver: resolver).send(Self.attempt(url))
            #expect(connected.statusCode == nil)
            #expect(counter.accepted == 1)
            #expect(resolver.asked == ["rebind.example.com.", "rebind.example.com."])
        }
    }

    /// The connection goes to the address the lookup gave (the first that accepts), and the
    /// request names the URL's host: one lookup per attempt, none by the connection itself.
    @Test func connectsToTheCheckedAddressAndNamesTheURLsHost() async throws {
        try await WebhookReceiver.with { receiver in
            // Nothing listens on 127.0.0.2 at the receiver's port: that address is refused first.
            let resolver = ScriptedResolver("hooks.example.com", ["127.0.0.2", "127.0.0.1"])
            let outcome = await Self.transport(resolver: resolver)
                .send(Self.attempt("http://hooks.example.com:\(receiver.port)/orders?shop=7"))
            #expect(outcome.statusCode == 200 && outcome.failure == nil)
            let delivery = try #require(receiver.deliveries.first)
            #expect(delivery.host == "hooks.example.com:\(receiver.port)")
            #expect(delivery.path == "/orders")
            #expect(delivery.contentLength == "2" && delivery.transferEncoding == nil)
            #expect(resolver.asked == ["hooks.example.com"])
        }
    }

    @Test func deliversOverTLSCheckingTheURLsName() async throws {
        let authority = try TestCertificateAuthority()
        let trusted = NIOSSLTrustRoots.certificates([authority.certificate])
        let tls = try authority.serverConfiguration(for: ["hooks.example.com", "127.0.0.1"])
        try await WebhookReceiver.with(tls: tls) { receiver in
            let resolver = ScriptedResolver([
                "hooks.example.com": [.addresses(["127.0.0.1"])], "other.example.com": [.addresses(["127.0.0.1"])],
            ])
            let policy = WebhookDestinationPolicy(
                requireHTTPS: true, allowList: try WebhookAllowList(parsing: "hooks.example.com,other.example.com,127.0.0.1")
            )
            let transport = Self.transport(policy: policy, resolver: resolver, trustRoots: trusted)

            let delivered = await transport.send(Self.attempt("https://hooks.example.com:\(receiver.port)/tls"))
            #expect(delivered.statusCode == 200, "\(delivered.detail ?? "")")
            #expect(receiver.deliveries.map(\.host) == ["hooks.example.com:\(receiver.port)"])

            let byAddress = await transport.send(Self.attempt("https://127.0.0.1:\(receiver.port)/tls"))
            #expect(byAddress.statusCode == 200, "an address in the certificate: \(byAddress.detail ?? "")")

            let otherName = await transport.send(Self.attempt("https://other.example.com:\(receiver.port)/tls"))
            #expect(otherName.failure == .tlsFailure, "the certificate does not name other.example.com")

            let systemRoots = await Self.transport(policy: policy, resolver: resolver)
                .send(Self.attempt("https://hooks.example.com:\(receiver.port)/tls"))
            #expect(systemRoots.failure == .tlsFailure, "the test authority is not one the system trusts")
            #expect(receiver.deliveries.count == 2)
        }
    }

    @Test func certificateNamesMatchAsBrowsersMatchThem() {
        let match = WebhookHTTPClient.certificateNames
        #expect(match(["hooks.example.com"], "hooks.example.com"))
        #expect(match(["Hooks.Example.COM."], "hooks.example.com"))
        #expect(match(["hooks.example.com"], "HOOKS.example.com."))
        #expect(match(["other.example.com", "*.example.com"], "hooks.example.com"))
        #expect(!match(["*.example.com"], "example.com"))
        #expect(!match(["*.example.com"], "a.hooks.example.com"))
        #expect(!match(["*.com"], "example.com"))
        #expect(!match(["h*.example.com"], "hooks.example.com"), "only a whole leftmost label is a wildcard")
        #expect(!match(["hooks.example.com"], "hooks.example.org"))
        #expect(!match(["127.0.0.1"], "hooks.example.com"))
        #expect(!match([], "hooks.example.com"))
        #expect(!match(["a..b"], "a..b"))
    }

    @Test func plainHTTPWhereTLSWasAskedForIsATLSFailure() async throws {
        try await WebhookReceiver.with { receiver in
            let outcome = await Self.transport().send(Self.attempt("https://127.0.0.1:\(receiver.port)/"))
            #expect(outcome.failure == .tlsFailure)
            #expect(receiver.deliveries.isEmpty)
        }
    }

    @Test func failuresAreClassesAndTheNetworksTextStaysInTheDetail() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        let refused = await Self.transport().send(Self.attempt("http://127.0.0.1:\(refusing.port)/"))
        #expect(refused.failure == .connectionFailed)
        #expect(refused.detail != nil)

        let unresolved = await Self.transport().send(Self.attempt("http://nowhere.example.com/"))
        #expect(unresolved.failure == .dnsFailure)

        let notHTTP = try RawEndpoint { send, _ in _ = send("SSH-2.0-OpenSSH_9.6\r\n") }
        defer { notHTTP.stop() }
        let garbled = await Self.transport().send(Self.attempt("http://127.0.0.1:\(notHTTP.port)/"))
        #expect(garbled.failure == .invalidResponse)

        let hangsUp = try RawEndpoint { _, _ in }
        defer { hangsUp.stop() }
        let closed = await Self.transport().send(Self.attempt("http://127.0.0.1:\(hangsUp.port)/"))
        #expect(closed.failure == .connectionFailed)
    }

    /// The body is read up to 64 KiB and dropped: an endpoint that sends more, or never ends its
    /// body, has answered once its status and that much have come.
    @Test func aLongAnswerIsReadOnlySoFar() async throws {
        let endpoint = try RawEndpoint { send, stopped in
            guard send("HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n" + String(repeating: "x", count: 100 * 1024)) else { return }
            while !stopped() { usleep(50_000) }
        }
        defer { endpoint.stop() }
        let outcome = await Self.transport().send(Self.attempt("http://127.0.0.1:\(endpoint.port)/"))
        #expect(outcome.statusCode == 200, "waiting for the rest of the body would have ended in a timeout")
    }

    @Test func interimResponsesAreSkipped() async throws {
        let endpoint = try RawEndpoint { send, _ in
            _ = send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        }
        defer { endpoint.stop() }
        let outcome = await Self.transport().send(Self.attempt("http://127.0.0.1:\(endpoint.port)/"))
        #expect(outcome.statusCode == 204 && outcome.succeeded)
    }

    // MARK: - Helpers

    static func transport(
        policy: WebhookDestinationPolicy = WebhookDestinationPolicy(), resolver: any HostResolver = ScriptedResolver(),
        timeout: Duration = .seconds(30), trustRoots: NIOSSLTrustRoots = .default
    ) -> WebhookTransport {
        WebhookTransport(
            timeout: timeout, destinations: WebhookDestinations(policy: policy, resolver: resolver),
            client: WebhookHTTPClient(trustRoots: trustRoots)
        )
    }

    static func attempt(_ url: String) -> WebhookDeliveryQueue.Attempt {
        WebhookDeliveryQueue.Attempt(
            delivery: 1, accountID: "acct_1", endpointID: "we_1", eventID: "evt_1", url: url, secret: "whsec_test",
            body: Array("{}".utf8), previousAttempts: 0, eventCreated: 0
        )
    }
}

/// Accepts one connection at a time on loopback, reads the request, and hands the connection to
/// `respond` (which writes with `send` and checks `stopped`), then closes it.
private final class RawEndpoint: Sendable {
    typealias Respond = @Sendable (_ send: (String) -> Bool, _ stopped: () -> Bool) -> Void

    let port: Int
    private let listener: Int32
    private let stopped = Atomic(false)

    init(respond: @escaping Respond) throws {
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
        Thread { [self] in serve(respond) }.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve(_ respond: Respond) {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            respond(
                { text in
                    let bytes = Array(text.utf8)
                    return bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
                },
                { self.stopped.load(ordering: .relaxed) }
            )
            close(connection)
        }
    }
}
