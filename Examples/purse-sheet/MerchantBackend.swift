import Foundation
import PurseClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's own backend (`purse-example-backend`), signed in with the app's token. It is the
/// only place a credential for Purse comes from: the app never holds Purse's secret key.
struct MerchantBackend: Sendable {
    let baseURL: URL
    let token: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the backend tells apps first: the publishable key and where Purse is.
    struct Config: Decodable, Sendable {
        let publishableKey: String
        let purseURL: URL

        enum CodingKeys: String, CodingKey {
            case publishableKey = "publishable_key"
            case purseURL = "purse_url"
        }
    }

    func config() async throws -> Config {
        try await call("GET", "/config")
    }

    /// The ephemeral-key provider.
    func ephemeralKey() async throws -> CustomerEphemeralKey {
        struct Answer: Decodable {
            let customer: String
            let ephemeralKey: String

            enum CodingKeys: String, CodingKey {
                case customer
                case ephemeralKey = "ephemeral_key"
            }
        }
        let answer: Answer = try await call("POST", "/customer-sheet/ephemeral-key?api_version=2020-08-27")
        return CustomerEphemeralKey(customerId: answer.customer, ephemeralKeySecret: answer.ephemeralKey)
    }

    /// The customer-session provider.
    func customerSession() async throws -> CustomerSessionClientSecret {
        struct Answer: Decodable {
            let customer: String
            let clientSecret: String

            enum CodingKeys: String, CodingKey {
                case customer
                case clientSecret = "customer_session_client_secret"
            }
        }
        let answer: Answer = try await call("POST", "/customer-sheet/customer-session")
        return CustomerSessionClientSecret(customerId: answer.customer, clientSecret: answer.clientSecret)
    }

    /// The setup-intent provider.
    func setupIntentClientSecret() async throws -> String {
        struct Answer: Decodable {
            let clientSecret: String

            enum CodingKeys: String, CodingKey { case clientSecret = "client_secret" }
        }
        let answer: Answer = try await call("POST", "/customer-sheet/setup-intent")
        return answer.clientSecret
    }

    private func call<Answer: Decodable>(_ method: String, _ path: String) async throws -> Answer {
        guard let url = URL(string: baseURL.absoluteString.replacingOccurrences(of: "/$", with: "", options: .regularExpression) + path) else {
            throw Failure(description: "Bad backend URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let text = String(decoding: data, as: UTF8.self)
            throw Failure(description: "The backend answered \(status) to \(path): \(text)")
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }
}
