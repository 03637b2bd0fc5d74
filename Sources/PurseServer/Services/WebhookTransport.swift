import Foundation
import PurseCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one signed webhook attempt: a POST with a JSON body and a Content-Length (not chunked),
/// a per-attempt timeout, and no redirects followed (a 3xx is a failed attempt, as for Stripe).
final class WebhookTransport: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: `session` is created once and URLSession is safe to use from any thread.
    private var session: URLSession!
    private let timeout: Duration

    init(timeout: Duration) {
        self.timeout = timeout
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func send(_ attempt: WebhookDeliveryStore.Attempt, at time: Int = Clock.now) async -> WebhookDeliveryStore.Outcome {
        guard let url = URL(string: attempt.url) else {
            return .init(statusCode: nil, failure: .destinationNotAllowed, durationMs: 0, detail: "invalid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(attempt.body)
        request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.setValue(String(attempt.body.count), forHTTPHeaderField: "Content-Length")
        request.setValue(WebhookSignature.header(secret: attempt.secret, timestamp: time, body: attempt.body), forHTTPHeaderField: "Stripe-Signature")
        request.setValue("Purse/1.0 (+webhooks)", forHTTPHeaderField: "User-Agent")
        let started = ContinuousClock.now
        do {
            let response = try await responseWithin(timeout, to: request)
            let status = (response as? HTTPURLResponse)?.statusCode
            return .init(statusCode: status, failure: nil, durationMs: Self.milliseconds(since: started))
        } catch {
            return .init(
                statusCode: nil, failure: Self.failure(for: error), durationMs: Self.milliseconds(since: started), detail: "\(error)"
            )
        }
    }

    /// The response, or `URLError(.timedOut)` once `limit` has passed. The session's own timeouts
    /// do not bound an attempt on Linux: an endpoint that trickles its answer a byte at a time
    /// kept one going for a minute against a 2 s timeout, long enough for the delivery's claim
    /// to run out and the event to be sent again beside it.
    private func responseWithin(_ limit: Duration, to request: URLRequest) async throws -> URLResponse {
        try await withThrowingTaskGroup(of: URLResponse?.self) { group in
            group.addTask { try await self.session.data(for: request).1 }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else { throw URLError(.timedOut) }
            return response
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The class of a network error: what the tenant sees (the error itself goes to the log).
    private static func failure(for error: any Error) -> WebhookFailure {
        let code = (error as NSError).code
        switch code {
        case NSURLErrorTimedOut: return .timeout
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return .dnsFailure
        case NSURLErrorClientCertificateRequired...NSURLErrorSecureConnectionFailed: return .tlsFailure
        case NSURLErrorBadServerResponse: return .invalidResponse
        default: return .connectionFailed
        }
    }
}
