public import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
public import NIOSSL
public import PurseModels
import ServiceLifecycle

/// A real HTTP server (or https, with a TLS configuration) on a loopback port that webhook
/// endpoints point at: it records every request and answers with scripted status codes.
public final class WebhookReceiver: Sendable {
    /// One request as it arrived.
    public struct Delivery: Sendable {
        public let path: String
        /// The `Host` header.
        public let host: String?
        public let signature: String?
        public let contentLength: String?
        public let transferEncoding: String?
        public let contentType: String?
        public let body: [UInt8]
        public var json: JSONValue { (try? JSONReader.parse(body)) ?? .null }
    }

    /// What arrived, the replies still to give, and the paths held unanswered with the requests
    /// waiting on them; shared with the route.
    private final class Inbox: Sendable {
        struct State {
            var deliveries: [Delivery] = []
            var replies: [Int] = []
            var held: [String: [CheckedContinuation<Void, Never>]] = [:]
        }
        let state = NIOLockedValueBox(State())
    }

    /// `http(s)://127.0.0.1:<port>`.
    public let url: URL
    public let port: Int
    private let inbox: Inbox
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, tls: Bool, inbox: Inbox, group: ServiceGroup, running: Task<Void, any Error>) {
        self.url = URL(string: "\(tls ? "https" : "http")://127.0.0.1:\(port)")!
        self.port = port
        self.inbox = inbox
        self.group = group
        self.running = running
    }

    /// Runs `body` with a receiver listening, over TLS with `tls`, and stops it afterwards.
    public static func with<Result>(
        tls: TLSConfiguration? = nil, _ body: (WebhookReceiver) async throws -> Result
    ) async throws -> Result {
        let receiver = try await start(tls: tls)
        do {
            let result = try await body(receiver)
            await receiver.stop()
            return result
        } catch {
            await receiver.stop()
            throw error
        }
    }

    /// Answers the next requests with `statuses`, in order, then with 200 again.
    public func reply(with statuses: [Int]) {
        inbox.state.withLockedValue { $0.replies = statuses }
    }

    /// Leaves requests to `path` unanswered until ``release(_:)`` (a slow endpoint).
    public func hold(_ path: String) {
        inbox.state.withLockedValue { $0.held[path] = $0.held[path] ?? [] }
    }

    /// Answers the requests held at `path`, and those that come later at once.
    public func release(_ path: String) {
        let waiting = inbox.state.withLockedValue { $0.held.removeValue(forKey: path) ?? [] }
        for request in waiting { request.resume() }
    }

    public var deliveries: [Delivery] { inbox.state.withLockedValue { $0.deliveries } }

    /// Waits until at least `count` requests arrived (counted when they arrive, before any delay), or fails after `timeout`.
    public func waitForDeliveries(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let received = deliveries
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("Expected \(count) webhook deliveries, received \(deliveries.count)")
    }

    private static func start(tls: TLSConfiguration?) async throws -> WebhookReceiver {
        let inbox = Inbox()
        let router = Router()
        router.post("**") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 22)
            let delivery = Delivery(
                path: request.uri.path,
                host: request.head.authority,
                signature: request.headers.first { $0.name.canonicalName == "stripe-signature" }?.value,
                contentLength: request.headers[.contentLength],
                transferEncoding: request.headers[.transferEncoding],
                contentType: request.headers[.contentType],
                body: Array(buffer: body)
            )
            let status = inbox.state.withLockedValue { state in
                state.deliveries.append(delivery)
                return state.replies.isEmpty ? 200 : state.replies.removeFirst()
            }
            await withCheckedContinuation { (request: CheckedContinuation<Void, Never>) in
                let held = inbox.state.withLockedValue { state in
                    guard state.held[delivery.path] != nil else { return false }
                    state.held[delivery.path]?.append(request)
                    return true
                }
                if !held { request.resume() }
            }
            return Response(status: HTTPResponse.Status(code: status))
        }
        var logger = Logger(label: "purse.test.webhook-receiver")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestSetupError("The webhook receiver did not start") }
        return WebhookReceiver(port: port, tls: tls != nil, inbox: inbox, group: group, running: running)
    }

    private func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}
