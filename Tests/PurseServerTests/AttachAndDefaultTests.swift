import Foundation
import PurseModels
import PurseServer
import TestSupport
import Testing

@Suite("Attach, detach and the default")
struct AttachAndDefaultTests {
    @Test func theAttachDecisionTable() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let alice = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let bob = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let method = try #require(try await api.post("/v1/payment_methods", cardForm("4242424242424242")).json["id"]?.stringValue)

            let attached = try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(alice)")
            #expect(attached.status == 200)
            #expect(attached.json["customer"]?.stringValue == alice)
            // Again to the same customer: 200, nothing changes, no second event.
            let again = try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(alice)")
            #expect(again.status == 200 && again.json == attached.json)
            #expect(try await api.get("/v1/events", query: "type=payment_method.attached").json["data"]?.arrayValue?.count == 1)
            // To another customer: refused, nothing changes.
            let stolen = try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(bob)")
            #expect(stolen.status == 400)
            #expect(stolen.error?["code"] == "payment_method_unexpected_state")
            #expect(stolen.error?["param"] == "payment_method")
            #expect(try await api.get("/v1/payment_methods/\(method)").json["customer"]?.stringValue == alice)

            let detached = try await api.post("/v1/payment_methods/\(method)/detach")
            #expect(detached.status == 200)
            #expect(detached.json["customer"] == .null)
            let twice = try await api.post("/v1/payment_methods/\(method)/detach")
            #expect(twice.status == 400)
            #expect(twice.error?["code"] == "payment_method_unexpected_state")
            // A detached method can never be attached or used again.
            let reuse = try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(alice)")
            #expect(reuse.status == 400)
            #expect(reuse.error?["code"] == "payment_method_unexpected_state")

            let unattached = try #require(try await api.post("/v1/payment_methods", cardForm("5555555555554444")).json["id"]?.stringValue)
            #expect(try await api.post("/v1/payment_methods/\(unattached)/detach").status == 400)
            let unknownCustomer = try await api.post("/v1/payment_methods/\(unattached)/attach", "customer=cus_nothing")
            #expect(unknownCustomer.status == 400, "named by a parameter")
            #expect(unknownCustomer.error?["code"] == "resource_missing")
            #expect(unknownCustomer.error?["param"] == "customer")
            #expect(try await api.post("/v1/payment_methods/pm_nothing/attach", "customer=\(alice)").status == 404)
        }
    }

    @Test(arguments: [
        ("4000000000000002", "card_declined", "generic_decline"),
        ("4000000000009995", "card_declined", "insufficient_funds"),
        ("4000000000009987", "card_declined", "lost_card"),
        ("4000000000009979", "card_declined", "stolen_card"),
        ("4000000000000069", "expired_card", "expired_card"),
        ("4000000000000127", "incorrect_cvc", "incorrect_cvc"),
        ("4000000000000119", "processing_error", "processing_error"),
        ("4000000000006975", "card_declined", "card_velocity_exceeded"),
    ])
    func decliningCardsAreNotAttached(number: String, code: String, declineCode: String) async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let method = try #require(try await api.post("/v1/payment_methods", cardForm(number)).json["id"]?.stringValue)
            let call = try await api.post("/v1/payment_methods/\(method)/attach", "customer=\(customer)")
            #expect(call.status == 402)
            #expect(call.error?["type"] == "card_error")
            #expect(call.error?["code"]?.stringValue == code)
            #expect(call.error?["decline_code"]?.stringValue == declineCode)
            #expect(try await api.get("/v1/payment_methods/\(method)").json["customer"] == .null)
            #expect(try await api.get("/v1/customers/\(customer)/payment_methods").json["data"] == [])
        }
    }

    @Test func cardsThatOnlyFailLaterAttachAndTokensBecomeNewMethods() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let later = try await api.post("/v1/payment_methods/pm_card_chargeCustomerFail/attach", "customer=\(customer)")
            #expect(later.status == 200)
            #expect(later.json["id"]?.stringValue?.hasPrefix("pm_") == true)
            #expect(later.json["id"] != "pm_card_chargeCustomerFail")
            #expect(later.json["card"]?["last4"] == "0341")
            let declined = try await api.post("/v1/payment_methods/pm_card_chargeDeclined/attach", "customer=\(customer)")
            #expect(declined.status == 402)
            let bank = try await api.post("/v1/payment_methods/pm_usBankAccount_success/attach", "customer=\(customer)")
            #expect(bank.json["us_bank_account"]?["last4"] == "6789")
            let closed = try await api.post("/v1/payment_methods/pm_usBankAccount_accountClosed/attach", "customer=\(customer)")
            #expect(closed.status == 400)
            #expect(closed.error?["code"] == "bank_account_unusable")
            #expect(try await api.get("/v1/customers/\(customer)/payment_methods").json["data"]?.arrayValue?.count == 2)
        }
    }

    @Test func theDefaultIsClearedOnDetachAndCustomerDelete() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let method = try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)

            let other = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let foreign = try await api.post("/v1/customers/\(other)", "invoice_settings[default_payment_method]=\(method)")
            #expect(foreign.status == 400)
            #expect(foreign.error?["code"] == "resource_missing")
            #expect(foreign.error?["param"] == "invoice_settings[default_payment_method]")

            let withDefault = try await api.post("/v1/customers/\(customer)", "invoice_settings[default_payment_method]=\(method)")
            #expect(withDefault.json["invoice_settings"]?["default_payment_method"]?.stringValue == method)
            let expanded = try await api.get("/v1/customers/\(customer)", query: "expand[]=invoice_settings.default_payment_method")
            #expect(expanded.json["invoice_settings"]?["default_payment_method"]?["card"]?["last4"] == "4242")
            let selected = try await api.get("/v1/customers/\(customer)/selected_payment_option")
            #expect(selected.json["option"]?.stringValue == method)

            _ = try await api.post("/v1/payment_methods/\(method)/detach")
            #expect(try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"] == .null)
            #expect(try await api.get("/v1/customers/\(customer)/selected_payment_option").json["option"] == .null)
            let updates = try await api.get("/v1/events", query: "type=customer.updated").json["data"]?.arrayValue ?? []
            #expect(updates.first?["data"]?["previous_attributes"]?["invoice_settings"]?["default_payment_method"]?.stringValue == method)

            // Deleting a customer detaches its methods and clears its default in one transaction.
            let second = try #require(
                try await api.post("/v1/payment_methods/pm_card_mastercard/attach", "customer=\(customer)").json["id"]?.stringValue)
            _ = try await api.post("/v1/customers/\(customer)", "invoice_settings[default_payment_method]=\(second)")
            _ = try await api.delete("/v1/customers/\(customer)")
            #expect(try await api.get("/v1/payment_methods/\(second)").json["customer"] == .null)
            #expect(try await api.post("/v1/payment_methods/\(second)/attach", "customer=\(other)").status == 400)
            let detachedEvents = try await api.get("/v1/events", query: "type=payment_method.detached").json["data"]?.arrayValue ?? []
            #expect(detachedEvents.count == 2)
        }
    }

    @Test func createWithAPaymentMethodAndItAsTheDefault() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.post(
                "/v1/customers", "payment_method=pm_card_visa&invoice_settings[default_payment_method]=pm_card_visa"
            )
            #expect(call.status == 200, "\(call.json)")
            let customer = try #require(call.json["id"]?.stringValue)
            let method = try #require(call.json["invoice_settings"]?["default_payment_method"]?.stringValue)
            #expect(method.hasPrefix("pm_") && method != "pm_card_visa")
            #expect(try await api.get("/v1/payment_methods/\(method)").json["customer"]?.stringValue == customer)
            // A create's response is written as bytes once; expand still reaches into it.
            let expanded = try await api.post(
                "/v1/customers",
                "payment_method=pm_card_visa&invoice_settings[default_payment_method]=pm_card_visa"
                    + "&expand[]=invoice_settings.default_payment_method"
            )
            #expect(expanded.status == 200, "\(expanded.json)")
            let shown = expanded.json["invoice_settings"]?["default_payment_method"]
            #expect(shown?["object"] == "payment_method")
            #expect(shown?["customer"] == expanded.json["id"])
            let declined = try await api.post("/v1/customers", "payment_method=pm_card_chargeDeclined")
            #expect(declined.status == 402)
            let onlyDefault = try await api.post("/v1/customers", "invoice_settings[default_payment_method]=pm_card_visa")
            #expect(onlyDefault.status == 400)
            #expect(try await api.get("/v1/customers").json["data"]?.arrayValue?.count == 2, "refused creations left nothing")
        }
    }

    @Test func theSelectedOptionFollowsTheRules() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let method = try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
            let path = "/v1/customers/\(customer)/selected_payment_option"
            let empty = try await api.get(path)
            #expect(
                empty.json == [
                    "object": "selected_payment_option", "customer": .string(customer), "option": .null, "payment_method": .null,
                    "unavailable_reason": .null,
                ])

            let picked = try await api.post(path, "option=\(method)")
            #expect(picked.json["option"]?.stringValue == method)
            #expect(picked.json["payment_method"]?["id"]?.stringValue == method)
            #expect(try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue == method)

            let applePay = try await api.post(path, "option=apple_pay")
            #expect(applePay.json["option"] == "apple_pay")
            #expect(applePay.json["payment_method"] == .null)
            #expect(
                try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue == method,
                "Apple Pay keeps the saved default for off-session use")
            // Detaching the default while Apple Pay is selected keeps Apple Pay.
            _ = try await api.post(path, "option=link")
            _ = try await api.post("/v1/payment_methods/\(method)/detach")
            #expect(try await api.get(path).json["option"] == "link")
            let none = try await api.post(path, "option=")
            #expect(none.json["option"] == .null)
            let unknown = try await api.post(path, "option=pm_nothing")
            #expect(unknown.status == 400)
            #expect(unknown.error?["param"] == "option")
            #expect(try await api.post(path).status == 400, "option is required")
        }
    }

    /// The limit is counted inside the attach's own statement: at 500 the next attach is refused
    /// and changes nothing, and a detach makes room again.
    @Test func aCustomerHoldsAtMostFiveHundredMethods() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let first = try #require(
                try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue
            )
            // 499 more, cloned in SQL: attaching them one by one would only make the test slow.
            try await server.pool.query(
                """
                INSERT INTO payment_methods (id, account_id, created, type, state, customer_id, billing_details,
                    allow_redisplay, metadata, details, processor_reference, fingerprint, card_brand, card_funding,
                    card_exp_month, card_exp_year, country)
                SELECT 'pm_clone' || g, account_id, created, type, state, customer_id, billing_details, allow_redisplay,
                       metadata, details, processor_reference, fingerprint, card_brand, card_funding, card_exp_month,
                       card_exp_year, country
                FROM payment_methods, generate_series(1, 499) AS g WHERE id = \(first)
                """
            )
            let spare = try #require(
                try await api.post("/v1/payment_methods", "type=sepa_debit&sepa_debit[iban]=DE89370400440532013000&billing_details[name]=Ana")
                    .json["id"]?.stringValue
            )
            let refused = try await api.post("/v1/payment_methods/\(spare)/attach", "customer=\(customer)")
            #expect(refused.status == 400)
            #expect(refused.error?["code"] == "customer_max_payment_methods")
            #expect(try await api.get("/v1/payment_methods/\(spare)").json["customer"] == .null)
            #expect(try await api.post("/v1/payment_methods/\(first)/detach").status == 200)
            let attached = try await api.post("/v1/payment_methods/\(spare)/attach", "customer=\(customer)")
            #expect(attached.json["customer"]?.stringValue == customer)
        }
    }

    @Test func fiftyConcurrentSetDefaultsLeaveOneOfThem() async throws {
        // Fifty requests serialized by one row lock wait their turn, however slow the machine
        // (ThreadSanitizer): no pool or request time limit is what this test is about.
        let patient = ServerConfiguration(port: 0, logLevel: .warning, requestTimeout: .seconds(120))
        try await LiveServer.with(configuration: patient, poolOptions: .init(maxConnections: 4, checkoutTimeout: .seconds(60))) { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            var methods: [String] = []
            for _ in 0..<5 {
                methods.append(
                    try #require(try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue))
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    let method = methods[index % methods.count]
                    group.addTask {
                        let body = index % 2 == 0 ? "invoice_settings[default_payment_method]=\(method)" : "option=\(method)"
                        let path = index % 2 == 0 ? "/v1/customers/\(customer)" : "/v1/customers/\(customer)/selected_payment_option"
                        return try await api.post(path, body).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 })
            let chosen = try #require(try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]?.stringValue)
            #expect(methods.contains(chosen))
            #expect(try await api.get("/v1/customers/\(customer)/selected_payment_option").json["option"]?.stringValue == chosen)
        }
    }

    @Test func oneMethodAttachedConcurrentlyToTwoCustomersEndsOnOne() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            for _ in 0..<5 {
                let first = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
                let second = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
                let method = try #require(try await api.post("/v1/payment_methods", cardForm("4242424242424242")).json["id"]?.stringValue)
                async let a = api.post("/v1/payment_methods/\(method)/attach", "customer=\(first)")
                async let b = api.post("/v1/payment_methods/\(method)/attach", "customer=\(second)")
                let results = try await [a, b]
                #expect(results.filter { $0.status == 200 }.count == 1)
                #expect(results.filter { $0.status == 400 }.count == 1)
                let owner = try await api.get("/v1/payment_methods/\(method)").json["customer"]?.stringValue
                #expect(owner == first || owner == second)
                let counts = [
                    try await api.get("/v1/customers/\(first)/payment_methods").json["data"]?.arrayValue?.count ?? 0,
                    try await api.get("/v1/customers/\(second)/payment_methods").json["data"]?.arrayValue?.count ?? 0,
                ]
                #expect(counts.sorted() == [0, 1])
            }
        }
    }

    @Test func setDefaultRacingDetachNeverLeavesADetachedDefault() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            for _ in 0..<5 {
                let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
                let method = try #require(
                    try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue)
                async let set = api.post("/v1/customers/\(customer)", "invoice_settings[default_payment_method]=\(method)")
                async let detach = api.post("/v1/payment_methods/\(method)/detach")
                _ = try await [set, detach]
                let state = try await api.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"]
                #expect(state == .null, "the method is detached, so it cannot be the default")
            }
        }
    }
}
