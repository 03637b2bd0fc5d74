import Foundation
import Hummingbird

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls Purse with the secret key, as any merchant backend calls Stripe: form bodies, Bearer
/// auth. It runs on the server only; apps never see the key.
struct PurseSecretAPI: Sendable {
    let baseURL: URL
    let secretKey: String

    /// A Purse error passed on to the app as a 502 with Purse's message.
    static func failure(status: Int, body: Data) -> HTTPError {
        struct Envelope: Decodable {
            struct Body: Decodable { let message: String? }
            let error: Body
        }
        let message = (try? JSONDecoder().decode(Envelope.self, from: body))?.error.message ?? "HTTP \(status)"
        return HTTPError(.badGateway, message: "Purse refused the request: \(message)")
    }

    func get<Answer: Decodable>(_ path: String, query: [(String, String)] = [], as type: Answer.Type) async throws -> Answer {
        try await send("GET", path + (query.isEmpty ? "" : "?" + Self.form(query)), body: nil, headers: [:])
    }

    func post<Answer: Decodable>(
        _ path: String, _ form: [(String, String)], headers: [String: String] = [:], as type: Answer.Type
    ) async throws -> Answer {
        try await send("POST", path, body: Data(Self.form(form).utf8), headers: headers)
    }

    private func send<Answer: Decodable>(
        _ method: String, _ pathAndQuery: String, body: Data?, headers: [String: String]
    ) async throws -> Answer {
        guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + pathAndQuery) else {
            throw HTTPError(.internalServerError, message: "Bad Purse URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(secretKey)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw HTTPError(.badGateway, message: "Purse could not be reached at \(baseURL): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw Self.failure(status: status, body: data) }
        return try JSONDecoder().decode(Answer.self, from: data)
    }

    /// `a=1&b%5Bc%5D=2`: names and values percent-encoded.
    private static func form(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return pairs.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
