import Hummingbird

/// The app's own sign-in, reduced to a demo: each user has a fixed bearer token. A real backend
/// checks its own session here; whatever it does, the customer it acts for comes from the
/// signed-in user, never from the request.
enum DemoUsers {
    /// A signed-in user.
    struct User: Sendable {
        let name: String
        var email: String { "\(name)@example.com" }
    }

    static let tokens = ["demo-token-alice": "alice", "demo-token-bob": "bob"]

    /// The user the request's `Authorization: Bearer <token>` signs in, or a 401.
    static func user(of request: Request) throws -> User {
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer "), let name = tokens[String(header.dropFirst("Bearer ".count))] else {
            throw HTTPError(.unauthorized, message: "Sign in first: send Authorization: Bearer demo-token-alice (or -bob).")
        }
        return User(name: name)
    }
}
