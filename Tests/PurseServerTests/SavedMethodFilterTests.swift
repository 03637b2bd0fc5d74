import Foundation
import Postgres
import PurseCore
import PurseModels
import TestSupport
import Testing

/// A customer with one method of each kind the filters tell apart, and a device key.
struct FilterWorld {
    let account: TestAccount
    let customer: String
    let device: APIClient
    /// visa credit US, visa debit US, mastercard prepaid US, jcb credit JP, sepa DE, and a visa
    /// whose expiry is moved to last month (it was valid when saved).
    let methods: [String: String]

    static func make(_ server: LiveServer) async throws -> FilterWorld {
        let account = try await server.makeAccount()
        let api = account.secret
        let customer = try await api.post("/v1/customers").json["id"]?.stringValue ?? ""
        var methods: [String: String] = [:]
        for (name, token) in [
            ("credit", "pm_card_visa"), ("debit", "pm_card_visa_debit"), ("prepaid", "pm_card_mastercard_prepaid"), ("jcb", "pm_card_jcb"),
        ] {
            methods[name] = try await api.post("/v1/payment_methods/\(token)/attach", "customer=\(customer)").json["id"]?.stringValue
        }
        let sepa =
            try await api.post(
                "/v1/payment_methods",
                "type=sepa_debit&sepa_debit[iban]=DE89370400440532013000&billing_details[name]=J&billing_details[email]=j%40x.io"
            ).json["id"]?.stringValue ?? ""
        _ = try await api.post("/v1/payment_methods/\(sepa)/attach", "customer=\(customer)")
        methods["sepa"] = sepa
        let expired = try await api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)").json["id"]?.stringValue ?? ""
        methods["expired"] = expired
        try await FilterWorld.age(expired, to: Clock.now - 40 * 86_400, pool: server.pool)
        _ = try await api.post("/v1/payment_methods/\(methods["credit"]!)", "allow_redisplay=always")
        let device = account.client(key: try await account.ephemeralKey(for: customer).secret)
        return FilterWorld(account: account, customer: customer, device: device, methods: methods)
    }

    /// Moves a card's expiry to the month of `time`, as if that much time had passed.
    static func age(_ method: String, to time: Int, pool: PostgresClient) async throws {
        let year = Calendar.year(of: time)
        let month = Calendar.month(of: time)
        try await pool.query(
            """
            UPDATE payment_methods
            SET card_exp_year = \(Int32(year)), card_exp_month = \(Int32(month)),
                details = jsonb_set(jsonb_set(details::jsonb, '{exp_year}', to_jsonb(\(year))), '{exp_month}', to_jsonb(\(month)))::json
            WHERE id = \(method)
            """
        )
    }

    /// The names of the methods the device lists, for a filter set on the default settings.
    func visible(with filter: String) async throws -> Set<String> {
        _ = try await account.secret.post(
            "/v1/customer_sheet_settings/default",
            "saved_payment_method_filter[card][funding]=&saved_payment_method_filter[card][brands]=&saved_payment_method_filter[hide_expired]=false&saved_payment_method_filter[allow_redisplay]=&saved_payment_method_filter[countries]="
        )
        if !filter.isEmpty {
            let set = try await account.secret.post("/v1/customer_sheet_settings/default", filter)
            guard set.status == 200 else { throw TestSetupError("filter refused: \(set.json)") }
        }
        let listed = try await device.get("/v1/customers/\(customer)/payment_methods", query: "limit=100")
        let ids = Set(listed.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        return Set(methods.filter { ids.contains($0.value) }.map(\.key))
    }
}

@Suite("Sheet settings: saved-method filters")
struct SavedMethodFilterTests {
    static let all: Set<String> = ["credit", "debit", "prepaid", "jcb", "sepa", "expired"]

    @Test(
        arguments: [
            ("", all),
            ("saved_payment_method_filter[card][funding][]=debit", ["debit", "sepa"]),
            (
                "saved_payment_method_filter[card][funding][]=credit&saved_payment_method_filter[card][funding][]=prepaid",
                ["credit", "prepaid", "jcb", "sepa", "expired"]
            ),
            ("saved_payment_method_filter[card][brands][]=mastercard", ["prepaid", "sepa"]),
            ("saved_payment_method_filter[hide_expired]=true", all.subtracting(["expired"])),
            ("saved_payment_method_filter[allow_redisplay][]=always", ["credit"]),
            ("saved_payment_method_filter[countries][]=US", ["credit", "debit", "prepaid", "expired"]),
            ("saved_payment_method_filter[countries][]=DE&saved_payment_method_filter[countries][]=JP", ["jcb", "sepa"]),
            (
                "saved_payment_method_filter[card][brands][]=visa&saved_payment_method_filter[hide_expired]=true&saved_payment_method_filter[countries][]=US",
                ["credit", "debit"]
            ),
        ] as [(String, Set<String>)])
    func eachFilterAloneAndCombined(filter: String, expected: Set<String>) async throws {
        try await LiveServer.with { server in
            let world = try await FilterWorld.make(server)
            #expect(try await world.visible(with: filter) == expected)
            // The secret key's lists are never filtered, and hidden methods stay detachable by their owner.
            let all = try await world.account.secret.get("/v1/customers/\(world.customer)/payment_methods", query: "limit=100")
            #expect(all.json["data"]?.arrayValue?.count == Self.all.count)
            if let hidden = Self.all.subtracting(expected).first {
                #expect(try await world.device.post("/v1/payment_methods/\(world.methods[hidden]!)/detach").status == 200)
            }
        }
    }

    @Test func expiryIsJudgedByTheMonthAcrossItsBoundary() async throws {
        try await LiveServer.with { server in
            let world = try await FilterWorld.make(server)
            let now = Clock.now
            // A card expiring this month is still good; one that expired last month is not.
            try await FilterWorld.age(world.methods["credit"]!, to: now, pool: server.pool)
            let visible = try await world.visible(with: "saved_payment_method_filter[hide_expired]=true")
            #expect(visible.contains("credit"))
            #expect(!visible.contains("expired"))
            let firstOfThisMonth = now - (Calendar.day(of: now) - 1) * 86_400
            try await FilterWorld.age(world.methods["credit"]!, to: firstOfThisMonth - 86_400, pool: server.pool)
            #expect(!(try await world.visible(with: "saved_payment_method_filter[hide_expired]=true")).contains("credit"))
        }
    }

    @Test func filtersApplyToTheElementsSessionToo() async throws {
        try await LiveServer.with { server in
            let world = try await FilterWorld.make(server)
            _ = try await world.visible(with: "saved_payment_method_filter[card][funding][]=debit")
            let session = try await world.account.customerSession(
                for: world.customer,
                features:
                    "&components[customer_sheet][features][payment_method_allow_redisplay_filters][0]=always&components[customer_sheet][features][payment_method_allow_redisplay_filters][1]=unspecified"
            )
            let elements = try await world.account.publishable.get(
                "/v1/elements/sessions",
                query: "type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(session.clientSecret)"
            )
            let ids = Set(elements.json["customer"]?["payment_methods"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
            #expect(ids == [world.methods["debit"]!, world.methods["sepa"]!])
            #expect(elements.json["customer_sheet_settings"]?["saved_payment_method_filter"]?["card"]?["funding"] == ["debit"])
        }
    }

    /// Whatever the filter, the types a sheet may add stay those of `payment_method_types`.
    @Test func noFilterChangesTheAddableTypes() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            var random = SplitMix64(seed: 42)
            let values: [(String, [String])] = [
                ("saved_payment_method_filter[card][funding]", ["credit", "debit", "prepaid", "unknown"]),
                ("saved_payment_method_filter[card][brands]", ["visa", "mastercard", "amex", "jcb"]),
                ("saved_payment_method_filter[allow_redisplay]", ["always", "limited", "unspecified"]),
                ("saved_payment_method_filter[countries]", ["US", "DE", "FR"]),
            ]
            for _ in 0..<12 {
                var form = "saved_payment_method_filter[hide_expired]=\(Bool.random(using: &random))"
                for (param, choices) in values {
                    let chosen = choices.filter { _ in Bool.random(using: &random) }
                    form += chosen.isEmpty ? "&\(param)=" : chosen.enumerated().map { "&\(param)[\($0.offset)]=\($0.element)" }.joined()
                }
                #expect(try await account.secret.post("/v1/customer_sheet_settings/default", form).status == 200)
                let elements = try await account.publishable.get(
                    "/v1/elements/sessions",
                    query:
                        "type=deferred_intent&deferred_intent[mode]=setup&deferred_intent[payment_method_types][0]=card&deferred_intent[payment_method_types][1]=sepa_debit&deferred_intent[payment_method_types][2]=us_bank_account"
                )
                #expect(
                    elements.json["payment_method_preference"]?["ordered_payment_method_types"] == ["card", "sepa_debit", "us_bank_account"])
                #expect(try await account.publishable.post("/v1/payment_methods", "type=card&card[token]=tok_amex").status == 200)
                #expect(
                    try await account.publishable.post(
                        "/v1/payment_methods",
                        "type=sepa_debit&sepa_debit[iban]=FR1420041010050500013M02606&billing_details[name]=J&billing_details[email]=j%40x.io"
                    ).status == 200)
            }
        }
    }
}
