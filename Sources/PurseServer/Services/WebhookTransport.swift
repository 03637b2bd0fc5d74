import NIOCore
import NIOHTTP1
import NIOSSL
import PurseCore

/// Sends one signed webhook attempt: resolves the endpoint's host and checks every address
/// (``WebhookDestinations``), connects to a checked address (never to a second lookup's), and
/// POSTs the event with a Content-Length (not chunked). The whole attempt, lookup included, ends
/// at `timeout`; no redirect is followed (a 3xx is a failed attempt, as for Stripe). What the
/// tenant sees of a failure is its class, never the network's text.
struct WebhookTransport: Sendable {
    let timeout: Duration
    let destinations: WebhookDestinations
    let client: WebhookHTTPClient

    init(timeout: Duration, destinations: WebhookDestinations, client: WebhookHTTPClient = WebhookHTTPClient()) {
        self.timeout = timeout
        self.destinations = destinations
        self.client = client
    }

    func send(_ attempt: WebhookDeliveryQueue.Attempt, at time: Int = Clock.now) async -> WebhookDeliveryQueue.Outcome {
        let started = ContinuousClock.now
        func failed(_ failure: WebhookFailure, _ detail: String) -> WebhookDeliveryQueue.Outcome {
            .init(statusCode: nil, failure: failure, durationMs: Self.milliseconds(since: started), detail: detail)
        }

        let destinations = self.destinations
        let resolved: Result<WebhookDestinations.Destination, WebhookFailure>
        do {
            guard let answer = try await withTimeLimit(timeout, { await destinations.resolveForDelivery(attempt.url) }) else {
                return failed(.timeout, "the name lookup took longer than the attempt may")
            }
            resolved = answer
        } catch {
            return failed(.timeout, "stopped while looking the name up: \(error)")
        }
        let destination: WebhookDestinations.Destination
        switch resolved {
        case .failure(.dnsFailure): return failed(.dnsFailure, "the host name did not resolve")
        case .failure(let failure):
            return failed(failure, "the destination rules refuse the URL, its name or an address it resolves to; no connection made")
        case .success(let checked): destination = checked
        }

        let target = destination.target
        let addresses: [SocketAddress]
        do {
            addresses = try destination.addresses.map {
                try SocketAddress(packedIPAddress: ByteBuffer(bytes: $0.bytes), port: target.port)
            }
        } catch {
            return failed(.connectionFailed, "\(error)")
        }
        let remaining = started + timeout - ContinuousClock.now
        do {
            let status = try await client.post(
                request(for: attempt, to: target, at: time), to: addresses, tls: tls(for: target),
                deadline: .now() + TimeAmount(remaining)
            )
            return .init(statusCode: status, failure: nil, durationMs: Self.milliseconds(since: started))
        } catch {
            return failed(Self.failure(for: error), "\(error)")
        }
    }

    private func request(for attempt: WebhookDeliveryQueue.Attempt, to target: WebhookTarget, at time: Int) -> WebhookHTTPClient.Request {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.authority)
        headers.add(name: "User-Agent", value: "Purse/1.0 (+webhooks)")
        headers.add(name: "Accept", value: "*/*")
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(attempt.body.count))
        headers.add(name: "Stripe-Signature", value: WebhookSignature.header(secret: attempt.secret, timestamp: time, body: attempt.body))
        if let authorization = target.authorization { headers.add(name: "Authorization", value: authorization) }
        headers.add(name: "Connection", value: "close")
        return .init(
            head: HTTPRequestHead(version: .http1_1, method: .POST, uri: target.requestTarget, headers: headers),
            body: ByteBuffer(bytes: attempt.body)
        )
    }

    /// https: SNI and the certificate check use the URL's host, unless it is an IP address,
    /// which the certificate must then name.
    private func tls(for target: WebhookTarget) -> WebhookHTTPClient.TLS? {
        guard target.isHTTPS else { return nil }
        let isAddress = target.isIPv6Literal || SystemHostResolver.numericAddress(target.serverName) != nil
        return .init(serverName: isAddress ? nil : target.serverName)
    }

    /// The class of a network error.
    static func failure(for error: any Error) -> WebhookFailure {
        switch error {
        case is WebhookHTTPClient.Timeout: .timeout
        case ChannelError.connectTimeout: .timeout
        case NIOSSLError.uncleanShutdown: .connectionFailed
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError, is WebhookHTTPClient.CertificateNameMismatch: .tlsFailure
        case is HTTPParserError: .invalidResponse
        default: .connectionFailed
        }
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
