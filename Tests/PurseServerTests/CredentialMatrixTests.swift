import Foundation
import PurseModels
import TestSupport
import Testing

/// Every endpoint × every credential, with the status each cell must answer (spec §2).
@Suite("The credential matrix")
struct CredentialMatrixTests {
    enum Caller: String, CaseIterable, CustomStringConvertible {
        case secret, publishable, publishableWithClientSecret, ownEphemeralKey, otherEphemeralKey, expiredEphemeralKey,
            revokedEphemeralKey, ownSessionKey
        var description: String { rawValue }
    }

    /// The objects one matrix runs against: customer A (the keys' own) and customer B.
    struct World {
        let account: TestAccount
        let alice: String
        let bob: String
        /// The client secret of the session behind `.ownSessionKey`.
        let sessionClientSecret: String
        let keys: [Caller: String]

        func client(_ caller: Caller) -> APIClient {
            switch caller {
            case .secret: return account.secret
            case .publishable, .publishableWithClientSecret: return account.publishable
            default: return account.client(key: keys[caller])
            }
        }

        func attachedCard(to customer: String) async throws -> String {
            try await account.secret.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue ?? ""
        }

        func unattachedCard() async throws -> String {
            try await account.secret.post("/v1/payment_methods", "type=card&card[token]=tok_visa").json["id"]?.stringValue ?? ""
        }

        func setupIntent() async throws -> (id: String, secret: String) {
            let call = try await account.secret.post("/v1/setup_intents", "customer=\(alice)")
            return (call.json["id"]?.stringValue ?? "", call.json["client_secret"]?.stringValue ?? "")
        }
    }

    /// One row: how to make the request for a caller (fresh objects where it changes state), and
    /// the status for each caller. Expired and revoked keys are 401 on every row.
    struct Row: Sendable {
        let name: String
        let expected: [Caller: Int]
        let request: @Sendable (World, Caller) async throws -> (method: String, path: String, body: String?)
    }

    static let rows: [Row] = [
        Row(name: "list customers", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("GET", "/v1/customers", nil)
        },
        Row(name: "create customer", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("POST", "/v1/customers", "")
        },
        Row(name: "retrieve customer", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, _ in
            ("GET", "/v1/customers/\(world.alice)", nil)
        },
        Row(name: "update customer", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            ("POST", "/v1/customers/\(world.alice)", "name=x")
        },
        Row(name: "delete customer", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            let doomed = try await world.account.secret.post("/v1/customers").json["id"]?.stringValue ?? ""
            return ("DELETE", "/v1/customers/\(doomed)", nil)
        },
        Row(name: "revoke credentials", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            let other = try await world.account.secret.post("/v1/customers").json["id"]?.stringValue ?? ""
            return ("POST", "/v1/customers/\(other)/revoke_credentials", "")
        },
        Row(name: "create payment method", expected: [.secret: 200, .publishable: 200, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("POST", "/v1/payment_methods", "type=card&card[token]=tok_visa")
        },
        Row(name: "list payment methods", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 400]) { world, _ in
            ("GET", "/v1/payment_methods?customer=\(world.alice)&type=card", nil)
        },
        Row(name: "list customer's methods", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) {
            world, _ in
            ("GET", "/v1/customers/\(world.alice)/payment_methods", nil)
        },
        Row(name: "retrieve customer's method", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) {
            world, _ in
            ("GET", "/v1/customers/\(world.alice)/payment_methods/\(try await world.attachedCard(to: world.alice))", nil)
        },
        Row(name: "retrieve payment method", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) {
            world, _ in
            ("GET", "/v1/payment_methods/\(try await world.attachedCard(to: world.alice))", nil)
        },
        Row(name: "update payment method", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, _ in
            ("POST", "/v1/payment_methods/\(try await world.attachedCard(to: world.alice))", "metadata[k]=v")
        },
        Row(name: "attach payment method", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 400]) { world, _ in
            ("POST", "/v1/payment_methods/\(try await world.unattachedCard())/attach", "customer=\(world.alice)")
        },
        Row(name: "detach payment method", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, _ in
            ("POST", "/v1/payment_methods/\(try await world.attachedCard(to: world.alice))/detach", "")
        },
        Row(name: "read selected option", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, _ in
            ("GET", "/v1/customers/\(world.alice)/selected_payment_option", nil)
        },
        Row(name: "set selected option", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, _ in
            ("POST", "/v1/customers/\(world.alice)/selected_payment_option", "option=apple_pay")
        },
        Row(name: "create ephemeral key", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            ("POST", "/v1/ephemeral_keys", "customer=\(world.bob)")
        },
        Row(name: "revoke ephemeral key", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            let key = try await world.account.ephemeralKey(for: world.bob)
            return ("DELETE", "/v1/ephemeral_keys/\(key.id)", nil)
        },
        Row(name: "create setup intent", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("POST", "/v1/setup_intents", "")
        },
        Row(name: "list setup intents", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("GET", "/v1/setup_intents", nil)
        },
        Row(
            name: "retrieve setup intent",
            expected: [.secret: 200, .publishable: 400, .publishableWithClientSecret: 200, .ownEphemeralKey: 403, .otherEphemeralKey: 403]
        ) { world, caller in
            let intent = try await world.setupIntent()
            return ("GET", "/v1/setup_intents/\(intent.id)" + (caller == .publishableWithClientSecret ? "?client_secret=\(intent.secret)" : ""), nil)
        },
        Row(name: "update setup intent", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            ("POST", "/v1/setup_intents/\(try await world.setupIntent().id)", "description=x")
        },
        Row(
            name: "confirm setup intent",
            expected: [.secret: 200, .publishable: 400, .publishableWithClientSecret: 200, .ownEphemeralKey: 403, .otherEphemeralKey: 403]
        ) { world, caller in
            let intent = try await world.setupIntent()
            let secret = caller == .publishableWithClientSecret ? "&client_secret=\(intent.secret)" : ""
            return ("POST", "/v1/setup_intents/\(intent.id)/confirm", "payment_method=pm_card_visa" + secret)
        },
        Row(name: "cancel setup intent", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { world, _ in
            ("POST", "/v1/setup_intents/\(try await world.setupIntent().id)/cancel", "")
        },
        Row(name: "elements session", expected: [.secret: 200, .publishable: 200, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("GET", "/v1/elements/sessions?type=deferred_intent&deferred_intent[mode]=setup", nil)
        },
        Row(name: "elements detach", expected: [.secret: 403, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, caller in
            (
                "POST", "/v1/elements/payment_methods/\(try await world.attachedCard(to: world.alice))/detach",
                caller == .ownSessionKey ? "customer_session_client_secret=\(world.sessionClientSecret)" : ""
            )
        },
        Row(name: "elements set default", expected: [.secret: 403, .publishable: 403, .ownEphemeralKey: 200, .otherEphemeralKey: 404]) { world, _ in
            (
                "POST", "/v1/elements/customers/\(world.alice)/set_default_payment_method",
                "payment_method=\(try await world.attachedCard(to: world.alice))"
            )
        },
        Row(name: "create customer session", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) {
            world, _ in
            ("POST", "/v1/customer_sessions", "customer=\(world.bob)&components[customer_sheet][enabled]=true")
        },
        Row(name: "list events", expected: [.secret: 200, .publishable: 403, .ownEphemeralKey: 403, .otherEphemeralKey: 403]) { _, _ in
            ("GET", "/v1/events", nil)
        },
    ]

    @Test func everyEndpointAnswersEveryCredentialAsSpecified() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let alice = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let bob = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let expired = try await account.ephemeralKey(for: alice)
            try await server.pool.query("UPDATE ephemeral_keys SET expires = 1 WHERE id = \(expired.id)")
            let revoked = try await account.ephemeralKey(for: alice)
            _ = try await account.secret.delete("/v1/ephemeral_keys/\(revoked.id)")
            let session = try await account.customerSession(
                for: alice, features: "&components[customer_sheet][features][payment_method_remove]=enabled"
            )
            let world = World(
                account: account, alice: alice, bob: bob, sessionClientSecret: session.clientSecret,
                keys: [
                    .ownEphemeralKey: try await account.ephemeralKey(for: alice).secret,
                    .otherEphemeralKey: try await account.ephemeralKey(for: bob).secret,
                    .expiredEphemeralKey: expired.secret,
                    .revokedEphemeralKey: revoked.secret,
                    .ownSessionKey: session.apiKey,
                ]
            )
            var mismatches: [String] = []
            for row in Self.rows {
                for caller in Caller.allCases {
                    // A session's key (with removal enabled) has the ephemeral-key scope.
                    let expected =
                        row.expected[caller]
                        ?? (caller == .publishableWithClientSecret
                            ? row.expected[.publishable]
                            : caller == .ownSessionKey ? row.expected[.ownEphemeralKey] : 401)
                    guard let expected else { continue }
                    let (method, path, body) = try await row.request(world, caller)
                    let call = try await world.client(caller).send(method, path, headers: ["Stripe-Version": "2020-08-27"], body: body)
                    if call.status != expected {
                        mismatches.append(
                            "\(row.name) × \(caller): expected \(expected), got \(call.status) \(call.error?["message"]?.stringValue ?? "")")
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        }
    }
}
