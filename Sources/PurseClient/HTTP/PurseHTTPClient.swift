import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one request to Purse as stripe-ios sends it to Stripe: `Authorization: Bearer <key>`,
/// `Stripe-Version: 2020-08-27`, form-encoded bodies, JSON answers. Failures become
/// ``PurseClientError``s.
struct PurseHTTPClient: Sendable {
    /// The API version stripe-ios sends (`STPAPIClient.apiVersion`); Purse renders for it.
    static let stripeVersion = "2020-08-27"

    let baseURL: URL
    let session: URLSession

    /// A session that neither caches nor keeps cookies: every answer comes from Purse.
    static let defaultSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration)
    }()

    /// A decoded answer and the request id it came with.
    struct Answer<Body: Sendable>: Sendable {
        let body: Body
        let requestID: String?
    }

    func get<Body: Decodable & Sendable>(
        _ path: String, query: FormValue = .fields([]), key: String, as type: Body.Type = Body.self
    ) async throws -> Answer<Body> {
        let text = query.encoded
        return try await send("GET", path + (text.isEmpty ? "" : "?" + text), body: nil, key: key)
    }

    func post<Body: Decodable & Sendable>(
        _ path: String, form: FormValue = .fields([]), key: String, as type: Body.Type = Body.self
    ) async throws -> Answer<Body> {
        try await send("POST", path, body: Data(form.encoded.utf8), key: key)
    }

    private func send<Body: Decodable & Sendable>(
        _ method: String, _ pathAndQuery: String, body: Data?, key: String
    ) async throws -> Answer<Body> {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + pathAndQuery) else {
            throw PurseClientError(kind: .transport, requestID: nil, message: "Not a valid URL: \(base)\(pathAndQuery)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue(Self.stripeVersion, forHTTPHeaderField: "Stripe-Version")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw PurseClientError.transport(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw PurseClientError(kind: .transport, requestID: nil, message: "Purse's answer was not HTTP.")
        }
        let header = { (name: String) in Self.header(name, in: http) }
        guard (200..<300).contains(http.statusCode) else {
            throw PurseClientError.fromResponse(status: http.statusCode, body: data, header: header)
        }
        let requestID = header("Request-Id")
        do {
            return Answer(body: try JSONDecoder().decode(Body.self, from: data), requestID: requestID)
        } catch {
            throw PurseClientError.unreadable(status: http.statusCode, requestID: requestID, type: "\(Body.self)")
        }
    }

    /// A response header, matched case-insensitively (Linux's Foundation keeps the server's case).
    private static func header(_ name: String, in response: HTTPURLResponse) -> String? {
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, key.caseInsensitiveCompare(name) == .orderedSame { return value as? String }
        }
        return nil
    }

    /// An object id made safe for a path segment.
    static func segment(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? id
    }

    /// Ids are ASCII letters, digits and `_`; anything else is escaped.
    private static let segmentAllowed = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
    )
}
