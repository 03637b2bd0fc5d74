public import Foundation
public import PurseModels

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange with a server under test, over a real socket.
public struct HTTPCall: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data
    /// Where the answer came from: the request's URL, or the last redirect's target.
    public let url: URL?

    /// The body as text (a page's HTML).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (`.null` when it is not JSON).
    public var json: JSONValue { (try? JSONReader.parse(Array(body))) ?? .null }

    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The `error` object of a Stripe error envelope.
    public var error: JSONValue? { json["error"] }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }()

    /// Sends a request. A form body is sent as `application/x-www-form-urlencoded` unless
    /// `headers` says otherwise.
    public static func send(
        _ method: String,
        _ url: URL,
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> HTTPCall {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            if headers.keys.allSatisfy({ $0.lowercased() != "content-type" }) {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
        }
        let started = ContinuousClock.now
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            // URLSession's own message names neither the request nor how long it waited.
            throw TestSetupError("\(method) \(url.path) failed after \(ContinuousClock.now - started): \(error)")
        }
        guard let http = response as? HTTPURLResponse else { throw TestSetupError("Not an HTTP response") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return HTTPCall(status: http.statusCode, headers: fields, body: data, url: http.url)
    }
}
