import Foundation
import Postgres
import PurseModels
import PurseServer
import TestSupport
import Testing

/// Many clients racing on the same objects (spec §4 "safe under concurrent requests", §5): every
/// answer is a Stripe-style 2xx or 4xx, never a 5xx, and the state left behind is one a serial
/// order of the same requests could have left.
@Suite("Concurrent clients")
struct ConcurrencyTests {
    /// A pool that waits as long as the races need: 32 requests serialized by one row lock over
    /// four connections can queue past the 2 s checkout timeout on a machine running every suite
    /// at once, and these tests are about what the races leave behind, not about the timeout.
    static let patient = PostgresClient.Options(maxConnections: 4, checkoutTimeout: .seconds(30))
    /// A server as patient as the pool: under ThreadSanitizer, with every suite running, a
    /// request queued behind the lock outlived the usual 15 s request limit.
    static let patientServer = ServerConfiguration(port: 0, logLevel: .warning, requestTimeout: .seconds(120))

    @Test func settingDefaultsWhileDetachingNeverLeavesADetachedDefault() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            for _ in 0..<3 {
                let customer = try await Self.newCustomer(api)
                var methods: [String] = []
                for _ in 0..<4 { methods.append(try await Self.attachedCard(api, to: customer)) }
                let doomed = Array(methods.prefix(2))
                let device = account.client(key: try await account.ephemeralKey(for: customer).secret)

                // Every fourth client detaches one of the doomed two; the others set any of the four
                // as the default through the three routes there are to do it.
                let moves = (0..<32).map { index in
                    index % 4 == 0
                        ? Move.detach(doomed[(index / 4) % 2])
                        : Move.setDefault(methods[(index / 4) % 4], via: DefaultRoute.allCases[index % 4 - 1])
                }
                let calls = try await Self.concurrently(moves) { move in
                    switch move {
                    case .detach(let method):
                        return try await api.post("/v1/payment_methods/\(method)/detach")
                    case .setDefault(let method, via: .invoiceSettings):
                        return try await api.post("/v1/customers/\(customer)", "invoice_settings[default_payment_method]=\(method)")
                    case .setDefault(let method, via: .selectedOption):
                        return try await api.post("/v1/customers/\(customer)/selected_payment_option", "option=\(method)")
                    case .setDefault(let method, via: .elements):
                        return try await device.post("/v1/elements/customers/\(customer)/set_default_payment_method", "payment_method=\(method)")
                    default:
                        throw TestSetupError("not a move of this test: \(move)")
                    }
                }
                Self.expectNoServerErrors(calls)
                for method in doomed {
                    let detaches = zip(moves, calls).filter { $0.0 == .detach(method) }.map(\.1)
                    #expect(detaches.filter { $0.status == 200 }.count == 1, "one detach of \(method) wins")
                    #expect(
                        detaches.filter { $0.status != 200 }.allSatisfy { $0.status == 400 && $0.error?["code"] == "payment_method_unexpected_state" }
                    )
                }
                for (move, call) in zip(moves, calls) {
                    guard case .setDefault(let method, _) = move else { continue }
                    if doomed.contains(method) {
                        #expect(call.status == 200 || (call.status == 400 && call.error?["code"] == "resource_missing"), "\(Self.describe(call))")
                    } else {
                        #expect(call.status == 200, "a method nobody detaches can always be the default: \(Self.describe(call))")
                    }
                }

                let finalDefault = try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue
                if let finalDefault {
                    #expect(!doomed.contains(finalDefault), "the default \(finalDefault) was detached")
                    #expect(try await api.get("/v1/payment_methods/\(finalDefault)").json["customer"]?.stringValue == customer)
                }
                let selected = try await api.get("/v1/customers/\(customer)/selected_payment_option").json["option"]?.stringValue
                #expect(selected == finalDefault, "the selection follows the default when it names a method")
                let stored = try await server.pool.query(
                    """
                    SELECT pm.state, pm.customer_id FROM customers c
                    LEFT JOIN payment_methods pm ON pm.id = c.default_payment_method
                    WHERE c.id = \(customer) AND c.default_payment_method IS NOT NULL
                    """
                )
                for row in stored {
                    #expect(try row["state", as: String.self] == "attached")
                    #expect(try row["customer_id", as: String?.self] == customer)
                }
                #expect(
                    try await Self.count(
                        server, "SELECT count(*) AS n FROM payment_methods WHERE id = ANY(\(PostgresTextArray(doomed))) AND state = 'detached'") == 2)
            }
        }
    }

    @Test func oneSetupIntentConfirmedByManyClientsSucceedsOnce() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            for _ in 0..<3 {
                let customer = try await Self.newCustomer(api)
                let intent = try await api.post("/v1/setup_intents", "customer=\(customer)")
                let id = try #require(intent.json["id"]?.stringValue)
                let clientSecret = try #require(intent.json["client_secret"]?.stringValue)

                // Half the clients are the merchant's backend, half the app with the client secret.
                let calls = try await Self.concurrently(Array(0..<24)) { index in
                    index % 2 == 0
                        ? try await api.post("/v1/setup_intents/\(id)/confirm", "payment_method=pm_card_visa")
                        : try await account.publishable.post(
                            "/v1/setup_intents/\(id)/confirm", "payment_method=pm_card_visa&client_secret=\(clientSecret)"
                        )
                }
                Self.expectNoServerErrors(calls)
                let winners = calls.filter { $0.status == 200 }
                #expect(winners.count == 1, "\(calls.map(Self.describe))")
                #expect(winners.first?.json["status"] == "succeeded")
                let losers = calls.filter { $0.status != 200 }
                #expect(
                    losers.allSatisfy { $0.status == 400 && $0.error?["code"] == "setup_intent_unexpected_state" },
                    "\(losers.map(Self.describe))")

                let saved = try await api.get("/v1/customers/\(customer)/payment_methods").json["data"]?.arrayValue ?? []
                #expect(saved.count == 1, "exactly one method saved to the customer")
                let method = try #require(saved.first?["id"]?.stringValue)
                #expect(winners.first?.json["payment_method"]?.stringValue == method)
                #expect(try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE customer_id = \(customer)") == 1)
                #expect(
                    try await Self.count(
                        server, "SELECT count(*) AS n FROM setup_intents WHERE id = \(id) AND status = 'succeeded' AND payment_method_id = \(method)")
                        == 1)
                #expect(try await Self.eventCount(server, type: "setup_intent.succeeded", object: id) == 1)
                #expect(try await Self.eventCount(server, type: "payment_method.attached", object: method) == 1)
            }
        }
    }

    /// IdempotencyTests covers duplicates racing for their ids; here every client retries its
    /// 409 until it has an answer, and every answer must be the first one, byte for byte.
    @Test func everyClientRetryingOneKeyGetsTheOneResponse() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let headers = ["Idempotency-Key": "checkout-7"]
            let calls = try await Self.concurrently(Array(0..<24)) { _ in
                var call = try await api.post("/v1/customers", "name=Once&payment_method=pm_card_visa", headers: headers)
                var retries = 0
                while call.status == 409, retries < 500 {
                    retries += 1
                    try await Task.sleep(for: .milliseconds(10))
                    call = try await api.post("/v1/customers", "name=Once&payment_method=pm_card_visa", headers: headers)
                }
                return call
            }
            Self.expectNoServerErrors(calls)
            #expect(calls.allSatisfy { $0.status == 200 }, "\(calls.map(Self.describe))")
            #expect(Set(calls.map(\.body)).count == 1, "every response is the first one")
            #expect(calls.filter { $0.header("Idempotent-Replayed") == nil }.count == 1, "the request ran once")
            #expect(try await Self.count(server, "SELECT count(*) AS n FROM customers WHERE account_id = \(account.id)") == 1)
            #expect(try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE account_id = \(account.id)") == 1)
            #expect(
                try await Self.count(server, "SELECT count(*) AS n FROM events WHERE account_id = \(account.id) AND type = 'customer.created'") == 1)
        }
    }

    @Test func oneKeySentWithDifferentBodiesRunsOnlyOne() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let calls = try await Self.concurrently(Array(0..<24)) { index in
                try await api.post("/v1/customers", "name=Client\(index)", headers: ["Idempotency-Key": "contested"])
            }
            Self.expectNoServerErrors(calls)
            let winners = calls.filter { $0.status == 200 }
            #expect(winners.count == 1, "\(calls.map(Self.describe))")
            // Other parameters are refused once the first request is done (400, spec §5); while it
            // runs, its parameters are not known outside its transaction, and the key is in use (409).
            #expect(
                calls.filter { $0.status != 200 }.allSatisfy {
                    ($0.status == 400 && $0.error?["type"] == "idempotency_error")
                        || ($0.status == 409 && $0.error?["code"] == "idempotency_key_in_use")
                },
                "\(calls.map(Self.describe))")
            let names = try await server.pool.query("SELECT name FROM customers WHERE account_id = \(account.id)").map {
                try $0["name", as: String?.self]
            }
            #expect(names == [winners.first?.json["name"]?.stringValue], "only the winner's body ran")
        }
    }

    @Test func deletingACustomerWhileMethodsAreAttachedLeavesNoneOnIt() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try await Self.newCustomer(api)
            var unattached: [String] = []
            for _ in 0..<14 {
                unattached.append(try #require(try await api.post("/v1/payment_methods", cardForm("4242424242424242")).json["id"]?.stringValue))
            }
            var intents: [String] = []
            for _ in 0..<6 {
                intents.append(try await Self.newSetupIntent(api, for: customer))
            }
            // The two deletes sit in the middle, so attaches land on both sides of them.
            var moves = unattached.map(Move.attach) + Array(repeating: Move.attach("pm_card_visa"), count: 6) + intents.map(Move.confirm)
            moves.insert(.deleteCustomer, at: 11)
            moves.insert(.deleteCustomer, at: 19)
            let calls = try await Self.concurrently(moves) { move in
                switch move {
                case .attach(let method): return try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(customer)")
                case .confirm(let intent): return try await api.post("/v1/setup_intents/\(intent)/confirm", "payment_method=pm_card_visa")
                case .deleteCustomer: return try await api.delete("/v1/customers/\(customer)")
                default: throw TestSetupError("not a move of this test: \(move)")
                }
            }
            Self.expectNoServerErrors(calls)
            let outcomes = zip(moves, calls)
            let deletes = outcomes.filter { $0.0 == .deleteCustomer }.map(\.1)
            #expect(deletes.filter { $0.status == 200 }.count == 1)
            #expect(deletes.filter { $0.status != 200 }.allSatisfy { $0.status == 404 && $0.error?["code"] == "resource_missing" })
            // Before the delete an attach succeeds (and the delete then detaches it); after, the
            // customer is missing.
            let saves = outcomes.filter { $0.0 != .deleteCustomer }
            for (move, call) in saves where call.status != 200 {
                #expect(
                    call.status == 400 && call.error?["code"] == "resource_missing" && call.error?["param"] == "customer",
                    "\(move): \(Self.describe(call))")
            }
            let saved = try saves.filter { $0.1.status == 200 }.map { move, call in
                if case .confirm = move { return try #require(call.json["payment_method"]?.stringValue) }
                return try #require(call.json["id"]?.stringValue)
            }

            #expect(
                try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE customer_id = \(customer)") == 0,
                "no method belongs to the deleted customer")
            #expect(
                try await Self.count(
                    server, "SELECT count(*) AS n FROM payment_methods WHERE id = ANY(\(PostgresTextArray(saved))) AND state = 'detached'")
                    == saved.count,
                "what was attached before the delete was detached by it")
            let refused = zip(moves, calls).compactMap { move, call -> String? in
                guard case .attach(let method) = move, method != "pm_card_visa", call.status != 200 else { return nil }
                return method
            }
            #expect(
                try await Self.count(
                    server, "SELECT count(*) AS n FROM payment_methods WHERE id = ANY(\(PostgresTextArray(refused))) AND state = 'unattached'")
                    == refused.count,
                "a refused attach changed nothing")
            #expect(
                try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE account_id = \(account.id)") == unattached.count
                    + saved.filter { !unattached.contains($0) }.count,
                "refused token attaches and confirms left no method behind")
            #expect(
                try await Self.count(server, "SELECT count(*) AS n FROM events WHERE account_id = \(account.id) AND type = 'payment_method.detached'")
                    == saved.count)
            #expect(try await api.get("/v1/customers/\(customer)").json["deleted"] == true)
        }
    }

    /// More than AttachAndDefaultTests' two customers, and through confirmations and customer
    /// creations as well as attaches.
    @Test func oneMethodAttachedToManyCustomersAtOnceEndsOnOne() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            for _ in 0..<2 {
                let method = try #require(try await api.post("/v1/payment_methods", cardForm("5555555555554444")).json["id"]?.stringValue)
                var moves: [Move] = []
                for index in 0..<30 {
                    switch index % 5 {
                    case 3: moves.append(.createCustomerWithMethod)
                    case 4: moves.append(.confirm(try await Self.newSetupIntent(api, for: try await Self.newCustomer(api))))
                    default: moves.append(.attachTo(try await Self.newCustomer(api)))
                    }
                }
                let customersBefore = try await Self.count(server, "SELECT count(*) AS n FROM customers WHERE account_id = \(account.id)")
                let calls = try await Self.concurrently(moves) { move in
                    switch move {
                    case .attachTo(let customer): return try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(customer)")
                    case .confirm(let intent): return try await api.post("/v1/setup_intents/\(intent)/confirm", "payment_method=\(method)")
                    case .createCustomerWithMethod: return try await api.post("/v1/customers", "payment_method=\(method)")
                    default: throw TestSetupError("not a move of this test: \(move)")
                    }
                }
                Self.expectNoServerErrors(calls)
                let winners = zip(moves, calls).filter { $0.1.status == 200 }
                #expect(winners.count == 1, "\(calls.map(Self.describe))")
                #expect(
                    calls.filter { $0.status != 200 }.allSatisfy { $0.status == 400 && $0.error?["code"] == "payment_method_unexpected_state" },
                    "\(calls.map(Self.describe))")
                let winner: String? = winners.first.flatMap { move, call in
                    switch move {
                    case .attachTo(let customer): customer
                    case .createCustomerWithMethod: call.json["id"]?.stringValue
                    default: call.json["customer"]?.stringValue
                    }
                }
                let owners = try await server.pool.query(
                    "SELECT customer_id FROM payment_methods WHERE id = \(method) AND state = 'attached'"
                ).map { try $0["customer_id", as: String.self] }
                #expect(owners == [winner].compactMap { $0 }, "the method is on the winner's customer alone")
                #expect(
                    try await Self.count(server, "SELECT count(*) AS n FROM setup_intents WHERE payment_method_id = \(method)") <= 1,
                    "only a winning confirmation records the method")
                #expect(
                    try await Self.count(server, "SELECT count(*) AS n FROM customers WHERE account_id = \(account.id)")
                        == customersBefore + (winners.first?.0 == .createCustomerWithMethod ? 1 : 0),
                    "a refused creation left no customer")
                #expect(try await Self.eventCount(server, type: "payment_method.attached", object: method) == 1)
            }
        }
    }

    @Test func confirmingAndCancelingOneIntentAtOnceEndsOneWayOrTheOther() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            for _ in 0..<4 {
                let customer = try await Self.newCustomer(api)
                let intent = try await Self.newSetupIntent(api, for: customer)
                let calls = try await Self.concurrently(Array(0..<24)) { index in
                    index % 2 == 0
                        ? try await api.post("/v1/setup_intents/\(intent)/confirm", "payment_method=pm_card_visa")
                        : try await api.post("/v1/setup_intents/\(intent)/cancel", "cancellation_reason=abandoned")
                }
                Self.expectNoServerErrors(calls)
                #expect(calls.filter { $0.status == 200 }.count == 1, "the first to lock the intent wins: \(calls.map(Self.describe))")
                #expect(
                    calls.filter { $0.status != 200 }.allSatisfy { $0.status == 400 && $0.error?["code"] == "setup_intent_unexpected_state" },
                    "\(calls.map(Self.describe))")
                let status = try await api.get("/v1/setup_intents/\(intent)").json["status"]?.stringValue
                #expect(status == "succeeded" || status == "canceled")
                let saved = try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE customer_id = \(customer)")
                #expect(saved == (status == "succeeded" ? 1 : 0), "a method is saved exactly when the confirmation won")
                let outcomes =
                    try await Self.eventCount(server, type: "setup_intent.succeeded", object: intent)
                    + Self.eventCount(server, type: "setup_intent.canceled", object: intent)
                #expect(outcomes == 1)
            }
        }
    }

    /// A customer tapping the 3D Secure page's buttons again and again, in several tabs.
    @Test func anAuthenticationPageAnsweredManyTimesAtOnceDecidesOnce() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            for _ in 0..<3 {
                let customer = try await Self.newCustomer(api)
                let intent = try await Self.newSetupIntent(api, for: customer)
                let pending = try await api.post("/v1/setup_intents/\(intent)/confirm", "payment_method=pm_card_authenticationRequiredOnSetup")
                let page = try #require(pending.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue.flatMap(URL.init(string:)))
                let calls = try await Self.concurrently(Array(0..<20)) { index in
                    try await HTTPCall.send("POST", page, body: index % 4 == 3 ? "action=fail" : "action=complete")
                }
                Self.expectNoServerErrors(calls)
                #expect(calls.allSatisfy { $0.status == 200 }, "later answers show the decision made: \(calls.map(\.status))")
                let status = try await api.get("/v1/setup_intents/\(intent)").json["status"]?.stringValue
                #expect(status == "succeeded" || status == "requires_payment_method")
                #expect(
                    try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE customer_id = \(customer)")
                        == (status == "succeeded" ? 1 : 0))
                let decisions =
                    try await Self.eventCount(server, type: "setup_intent.succeeded", object: intent)
                    + Self.eventCount(server, type: "setup_intent.setup_failed", object: intent)
                #expect(decisions == 1)
            }
        }
    }

    /// The bound settings vanish between the check that they exist and the insert that names them.
    @Test func bindingToSheetSettingsBeingDeletedIsRefusedNeverAServerError() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try await Self.newCustomer(api)
            for _ in 0..<10 {
                let settings = try #require(try await api.post("/v1/customer_sheet_settings", "name=doomed").json["id"]?.stringValue)
                var moves = (0..<24).map { Move.create(BoundObject.allCases[$0 % 3]) }
                moves.insert(.deleteSettings, at: 8)
                let calls = try await Self.concurrently(moves) { move in
                    let binding = "customer=\(customer)&customer_sheet_settings=\(settings)"
                    switch move {
                    case .deleteSettings: return try await api.delete("/v1/customer_sheet_settings/\(settings)")
                    case .create(.ephemeralKey): return try await api.post("/v1/ephemeral_keys", binding, headers: ["Stripe-Version": "2020-08-27"])
                    case .create(.customerSession):
                        return try await api.post("/v1/customer_sessions", binding + "&components[customer_sheet][enabled]=true")
                    case .create(.setupIntent): return try await api.post("/v1/setup_intents", binding)
                    default: throw TestSetupError("not a move of this test: \(move)")
                    }
                }
                Self.expectNoServerErrors(calls)
                for (move, call) in zip(moves, calls) {
                    if move == .deleteSettings {
                        #expect(call.status == 200)
                    } else if call.status != 200 {
                        #expect(
                            call.status == 400 && call.error?["code"] == "resource_missing" && call.error?["param"] == "customer_sheet_settings",
                            "\(move): \(Self.describe(call))")
                    } else if move == .create(.ephemeralKey), let key = call.json["secret"]?.stringValue {
                        // A key bound to settings deleted since falls back to the account's default.
                        let current = try await account.client(key: key).get("/v1/customer_sheet_settings/current")
                        #expect(current.json["is_default"] == true)
                    }
                }
            }
        }
    }

    @Test func keysAndSessionsMadeWhileTheCustomerIsDeletedDieWithIt() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            for _ in 0..<8 {
                let customer = try await Self.newCustomer(api)
                var moves = (0..<24).map { Move.create($0 % 2 == 0 ? .ephemeralKey : .customerSession) }
                moves.insert(.deleteCustomer, at: 8)
                let calls = try await Self.concurrently(moves) { move in
                    switch move {
                    case .deleteCustomer: return try await api.delete("/v1/customers/\(customer)")
                    case .create(.ephemeralKey):
                        return try await api.post("/v1/ephemeral_keys", "customer=\(customer)", headers: ["Stripe-Version": "2020-08-27"])
                    case .create(.customerSession):
                        return try await api.post("/v1/customer_sessions", "customer=\(customer)&components[customer_sheet][enabled]=true")
                    default: throw TestSetupError("not a move of this test: \(move)")
                    }
                }
                Self.expectNoServerErrors(calls)
                for (move, call) in zip(moves, calls) where move != .deleteCustomer {
                    guard call.status == 200 else {
                        #expect(call.status == 400 && call.error?["code"] == "resource_missing", "\(move): \(Self.describe(call))")
                        continue
                    }
                    // Made before the delete or while it ran, a key must not outlive the customer.
                    if let key = call.json["secret"]?.stringValue {
                        #expect(try await account.client(key: key).get("/v1/customers/\(customer)").status == 401)
                    } else if let clientSecret = call.json["client_secret"]?.stringValue {
                        let elements = try await account.publishable.get(
                            "/v1/elements/sessions",
                            query: "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(clientSecret)"
                        )
                        #expect(elements.status == 400)
                    }
                }
                // Deleting a customer revokes its keys and sessions (spec §3); none is left live.
                #expect(
                    try await Self.count(server, "SELECT count(*) AS n FROM ephemeral_keys WHERE customer_id = \(customer) AND revoked_at IS NULL")
                        == 0,
                    "ephemeral keys of the deleted customer \(customer) left unrevoked")
                #expect(
                    try await Self.count(server, "SELECT count(*) AS n FROM customer_sessions WHERE customer_id = \(customer) AND revoked_at IS NULL")
                        == 0,
                    "customer sessions of the deleted customer \(customer) left unrevoked")
            }
        }
    }

    @Test func aSessionThatKeepsTheLastMethodKeepsItUnderConcurrentRemovals() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try await Self.newCustomer(api)
            var methods: [String] = []
            for _ in 0..<3 { methods.append(try await Self.attachedCard(api, to: customer)) }
            let session = try await account.customerSession(
                for: customer,
                features: "&components[customer_sheet][features][payment_method_remove]=enabled"
                    + "&components[customer_sheet][features][payment_method_remove_last]=disabled"
            )
            let device = account.client(key: session.apiKey)
            let calls = try await Self.concurrently(Array(0..<24)) { [methods] index in
                let method = methods[index % methods.count]
                return index % 2 == 0
                    ? try await device.post("/v1/payment_methods/\(method)/detach")
                    : try await device.post("/v1/elements/payment_methods/\(method)/detach", "customer_session_client_secret=\(session.clientSecret)")
            }
            Self.expectNoServerErrors(calls)
            #expect(calls.filter { $0.status == 200 }.count == 2, "\(calls.map(Self.describe))")
            // Refused: the last one; or already gone, seen before (404 to a customer's key) or during the removal (400).
            let refusals: Set<String> = ["customer_session_remove_last_disabled", "resource_missing", "payment_method_unexpected_state"]
            #expect(
                calls.filter { $0.status != 200 }.allSatisfy { refusals.contains($0.error?["code"]?.stringValue ?? "") },
                "\(calls.map(Self.describe))")
            #expect(
                try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE customer_id = \(customer) AND state = 'attached'") == 1)
        }
    }

    @Test func theSameCardSavedByManyClientsUnderReuseIsSavedOnce() async throws {
        try await LiveServer.with(configuration: Self.patientServer, poolOptions: Self.patient) { server in
            let account = try await server.makeAccount()
            let api = account.secret
            _ = try await api.post("/v1/customer_sheet_settings/default", "duplicate_cards=reuse")
            let customer = try await Self.newCustomer(api)
            let device = account.client(key: try await account.ephemeralKey(for: customer).secret)
            var copies: [String] = []
            for _ in 0..<24 {
                copies.append(
                    try #require(try await account.publishable.post("/v1/payment_methods", cardForm("4242424242424242")).json["id"]?.stringValue))
            }
            let calls = try await Self.concurrently(copies) { copy in
                try await device.post("/v1/payment_methods/\(copy)/attach", "customer=\(customer)")
            }
            Self.expectNoServerErrors(calls)
            #expect(calls.allSatisfy { $0.status == 200 }, "\(calls.map(Self.describe))")
            #expect(Set(calls.map { $0.json["id"] }).count == 1, "every client got the one saved card back")
            #expect(try await Self.count(server, "SELECT count(*) AS n FROM payment_methods WHERE customer_id = \(customer)") == 1)
        }
    }

    // MARK: - Helpers

    /// One client's request in a race.
    enum Move: Equatable, Sendable, CustomStringConvertible {
        case detach(String)
        case setDefault(String, via: DefaultRoute)
        case attach(String)
        case attachTo(String)
        case confirm(String)
        case createCustomerWithMethod
        case deleteCustomer
        case create(BoundObject)
        case deleteSettings

        var description: String {
            switch self {
            case .detach(let method): "detach \(method)"
            case .setDefault(let method, let route): "set default \(method) via \(route)"
            case .attach(let method): "attach \(method)"
            case .attachTo(let customer): "attach to \(customer)"
            case .confirm(let intent): "confirm \(intent)"
            case .createCustomerWithMethod: "create a customer with the method"
            case .deleteCustomer: "delete the customer"
            case .create(let object): "create \(object)"
            case .deleteSettings: "delete the sheet settings"
            }
        }
    }

    /// The three ways to set a customer's default payment method (spec §4).
    enum DefaultRoute: CaseIterable, Sendable {
        case invoiceSettings, selectedOption, elements
    }

    /// What a secret key creates for a customer, optionally bound to sheet settings.
    enum BoundObject: CaseIterable, Sendable {
        case ephemeralKey, customerSession, setupIntent
    }

    /// Sends every request at once, each from its own task, and returns the answers in order.
    static func concurrently<Request: Sendable>(
        _ requests: [Request], _ send: @escaping @Sendable (Request) async throws -> HTTPCall
    ) async throws -> [HTTPCall] {
        try await withThrowingTaskGroup(of: (Int, HTTPCall).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, try await send(request)) }
            }
            var answers: [Int: HTTPCall] = [:]
            for try await (index, call) in group { answers[index] = call }
            return requests.indices.compactMap { answers[$0] }
        }
    }

    static func expectNoServerErrors(_ calls: [HTTPCall], sourceLocation: SourceLocation = #_sourceLocation) {
        let failures = calls.filter { $0.status >= 500 }.map(describe)
        #expect(failures.isEmpty, "\(failures)", sourceLocation: sourceLocation)
    }

    static func describe(_ call: HTTPCall) -> String {
        "\(call.status) \(call.error?["code"]?.stringValue ?? "") \(call.error?["message"]?.stringValue ?? "")"
    }

    static func newCustomer(_ api: APIClient) async throws -> String {
        try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
    }

    static func newSetupIntent(_ api: APIClient, for customer: String) async throws -> String {
        try #require(try await api.post("/v1/setup_intents", "customer=\(customer)").json["id"]?.stringValue)
    }

    static func attachedCard(_ api: APIClient, to customer: String) async throws -> String {
        try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
    }

    /// The `n` of a `SELECT count(*) AS n ...`.
    static func count(_ server: LiveServer, _ query: PostgresQuery) async throws -> Int {
        try await server.pool.query(query)[0]["n", as: Int.self]
    }

    static func eventCount(_ server: LiveServer, type: String, object: String) async throws -> Int {
        try await count(server, "SELECT count(*) AS n FROM events WHERE type = \(type) AND data -> 'object' ->> 'id' = \(object)")
    }
}
