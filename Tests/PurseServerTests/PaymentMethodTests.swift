import Foundation
import PurseCore
import PurseModels
import TestSupport
import Testing

/// A card form as stripe-python sends it.
func cardForm(_ number: String, month: Int = 12, year: Int = 2034, cvc: String? = "123") -> String {
    "type=card&card[number]=\(number)&card[exp_month]=\(month)&card[exp_year]=\(year)" + (cvc.map { "&card[cvc]=\($0)" } ?? "")
}

@Suite("Payment methods over HTTP")
struct PaymentMethodTests {
    static let thisYear = Calendar.year(of: Clock.now)
    static let thisMonth = Calendar.month(of: Clock.now)

    @Test(arguments: [
        (cardForm("4242424242424241"), "incorrect_number", "card[number]"),
        (cardForm("424242424242424"), "incorrect_number", "card[number]"),
        (cardForm("9999999999999995"), "incorrect_number", "card[number]"),
        (cardForm("4242-4242-4242-424x"), "incorrect_number", "card[number]"),
        (cardForm("37828224631000"), "incorrect_number", "card[number]"),
        (cardForm("4242424242424242", month: 13), "invalid_expiry_month", "card[exp_month]"),
        (cardForm("4242424242424242", month: 0), "invalid_expiry_month", "card[exp_month]"),
        (cardForm("4242424242424242", year: thisYear - 1), "invalid_expiry_year", "card[exp_year]"),
        (cardForm("4242424242424242", year: thisYear + 51), "invalid_expiry_year", "card[exp_year]"),
        (cardForm("4242424242424242", cvc: "12"), "invalid_cvc", "card[cvc]"),
        (cardForm("4242424242424242", cvc: "12a"), "invalid_cvc", "card[cvc]"),
        (cardForm("378282246310005", cvc: "123"), "invalid_cvc", "card[cvc]"),
        (cardForm("4242424242424242", cvc: "1234"), "invalid_cvc", "card[cvc]"),
    ])
    func cardValidationErrorsAre402CardErrors(form: String, code: String, param: String) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            for api in [account.secret, account.publishable] {
                let call = try await api.post("/v1/payment_methods", form)
                #expect(call.status == 402, "\(call.json)")
                #expect(call.error?["type"] == "card_error")
                #expect(call.error?["code"]?.stringValue == code)
                #expect(call.error?["param"]?.stringValue == param)
                let message = call.error?["message"]?.stringValue ?? ""
                #expect(!message.contains("4242424242") && !message.contains("37828224631000"))
            }
        }
    }

    @Test func anExpiryEarlierThisYearIsRefused() async throws {
        guard Self.thisMonth > 1 else { return }  // in January no earlier month of this year exists
        try await LiveServer.with { server in
            let call = try await server.makeAccount().secret.post(
                "/v1/payment_methods", cardForm("4242424242424242", month: Self.thisMonth - 1, year: Self.thisYear)
            )
            #expect(call.status == 402)
            #expect(call.error?["code"] == "invalid_expiry_month")
        }
    }

    @Test func twoDigitYearsAndThisMonthAreAccepted() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let shortYear = try await api.post("/v1/payment_methods", cardForm("4242424242424242", year: (Self.thisYear + 2) % 100))
            #expect(shortYear.json["card"]?["exp_year"] == .int(Self.thisYear + 2))
            let thisMonth = try await api.post("/v1/payment_methods", cardForm("4242 4242 4242 4242", month: Self.thisMonth, year: Self.thisYear))
            #expect(thisMonth.status == 200)
        }
    }

    @Test(arguments: [
        (
            "type=us_bank_account&us_bank_account[routing_number]=110000001&us_bank_account[account_number]=000123456789&us_bank_account[account_holder_type]=individual",
            "us_bank_account[routing_number]"
        ),
        (
            "type=us_bank_account&us_bank_account[routing_number]=11000000&us_bank_account[account_number]=000123456789&us_bank_account[account_holder_type]=individual",
            "us_bank_account[routing_number]"
        ),
        (
            "type=us_bank_account&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=123&us_bank_account[account_holder_type]=individual",
            "us_bank_account[account_number]"
        ),
        (
            "type=us_bank_account&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=123456789012345678&us_bank_account[account_holder_type]=individual",
            "us_bank_account[account_number]"
        ),
        (
            "type=us_bank_account&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=00012345678x&us_bank_account[account_holder_type]=individual",
            "us_bank_account[account_number]"
        ),
        (
            "type=us_bank_account&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=000123456789",
            "us_bank_account[account_holder_type]"
        ),
        (
            "type=us_bank_account&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=000123456789&us_bank_account[account_holder_type]=robot",
            "us_bank_account[account_holder_type]"
        ),
        ("type=sepa_debit&sepa_debit[iban]=DE89370400440532013001", "sepa_debit[iban]"),
        ("type=sepa_debit&sepa_debit[iban]=DE8937040044053201300", "sepa_debit[iban]"),
        ("type=sepa_debit&sepa_debit[iban]=XX89370400440532013000", "sepa_debit[iban]"),
        ("type=sepa_debit", "sepa_debit"),
        ("type=card", "card"),
        ("type=paypal", "type"),
        ("type=card&card[exp_month]=1&card[exp_year]=2040", "card[number]"),
        ("type=sepa_debit&sepa_debit[iban]=DE89370400440532013000&card[number]=4242424242424242", "card"),
    ])
    func bankAndShapeErrorsAre400sNamingTheParameter(form: String, param: String) async throws {
        try await LiveServer.with { server in
            let call = try await server.makeAccount().secret.post("/v1/payment_methods", form)
            #expect(call.status == 400, "\(call.json)")
            #expect(call.error?["type"] == "invalid_request_error")
            #expect(call.error?["param"]?.stringValue == param)
            let message = call.error?["message"]?.stringValue ?? ""
            #expect(!message.contains("000123456789"))
        }
    }

    @Test(arguments: Array(TestInstruments.cards.values).sorted { $0.number < $1.number }.map { ($0.number, $0.funding, $0.country) })
    func eachTestCardHasItsBrandFundingAndLast4(number: String, funding: String, country: String?) async throws {
        try await LiveServer.with { server in
            let cvc = number.hasPrefix("3") && number.count == 15 ? "1234" : "123"
            let call = try await server.makeAccount().secret.post("/v1/payment_methods", cardForm(number, cvc: cvc))
            #expect(call.status == 200, "\(call.json)")
            let card = try #require(call.json["card"])
            #expect(card["last4"]?.stringValue == String(number.suffix(4)))
            #expect(card["funding"]?.stringValue == funding)
            #expect(card["country"]?.stringValue == country)
            let expectedBrand =
                number.hasPrefix("4")
                ? "visa"
                : number.hasPrefix("37")
                    ? "amex"
                    : number.hasPrefix("6011")
                        ? "discover"
                        : number.hasPrefix("3566")
                            ? "jcb"
                            : number.hasPrefix("62")
                                ? "unionpay"
                                : number.hasPrefix("30") || number.hasPrefix("36")
                                    ? "diners"
                                    : "mastercard"
            #expect(card["brand"]?.stringValue == expectedBrand)
            #expect(card["fingerprint"]?.stringValue?.count == 16)
            #expect(call.json["us_bank_account"] == nil && call.json["sepa_debit"] == nil)
            #expect(!JSONWriter.string(call.json).contains(number))
        }
    }

    @Test func tokensAndFingerprints() async throws {
        try await LiveServer.with { server in
            let first = try await server.makeAccount().secret
            let second = try await server.makeAccount().secret
            let typed = try await first.post("/v1/payment_methods", cardForm("4242424242424242"))
            let token = try await first.post("/v1/payment_methods", "type=card&card[token]=tok_visa")
            #expect(token.json["card"]?["last4"] == "4242")
            #expect(typed.json["card"]?["fingerprint"] == token.json["card"]?["fingerprint"], "one card, one fingerprint")
            let elsewhere = try await second.post("/v1/payment_methods", cardForm("4242424242424242"))
            #expect(elsewhere.json["card"]?["fingerprint"] != typed.json["card"]?["fingerprint"], "fingerprints are per account")
            #expect(try await first.post("/v1/payment_methods", "type=card&card[token]=tok_nope").status == 400)
            let debit = try await first.post("/v1/payment_methods", "type=card&card[token]=pm_card_visa_debit")
            #expect(debit.json["card"]?["funding"] == "debit")
        }
    }

    @Test func retrieveUpdateAndItsEvent() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let unattached = try #require(try await api.post("/v1/payment_methods", cardForm("4242424242424242")).json["id"]?.stringValue)
            let notYet = try await api.post("/v1/payment_methods/\(unattached)", "metadata[a]=b")
            #expect(notYet.status == 400)
            #expect(notYet.error?["code"] == "payment_method_unexpected_state")

            _ = try await api.post("/v1/payment_methods/\(unattached)/attach", "customer=\(customer)")
            let updated = try await api.post(
                "/v1/payment_methods/\(unattached)",
                "billing_details[name]=Jenny&billing_details[address][city]=Oslo&card[exp_month]=6&card[exp_year]=\(Self.thisYear + 5)&allow_redisplay=always&metadata[k]=v"
            )
            #expect(updated.status == 200, "\(updated.json)")
            #expect(updated.json["billing_details"]?["name"] == "Jenny")
            #expect(updated.json["billing_details"]?["address"]?["city"] == "Oslo")
            #expect(updated.json["card"]?["exp_month"] == 6)
            #expect(updated.json["allow_redisplay"] == "always")
            let badExpiry = try await api.post("/v1/payment_methods/\(unattached)", "card[exp_year]=\(Self.thisYear - 2)")
            #expect(badExpiry.status == 402)
            #expect(try await api.get("/v1/payment_methods/\(unattached)").json == updated.json)
            let events = try await api.get("/v1/events", query: "type=payment_method.updated").json["data"]?.arrayValue ?? []
            #expect(events.count == 1)
            #expect(events.first?["data"]?["previous_attributes"]?["allow_redisplay"] == "unspecified")
            #expect(try await api.get("/v1/payment_methods/pm_nothing").status == 404)
        }
    }

    @Test func listsByCustomerAndType() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            var cards: [String] = []
            for token in ["pm_card_visa", "pm_card_mastercard", "pm_card_amex"] {
                cards.append(try #require(try await api.post("/v1/payment_methods/\(token)/attach", "customer=\(customer)").json["id"]?.stringValue))
            }
            let sepa = try #require(
                try await api.post("/v1/payment_methods", "type=sepa_debit&sepa_debit[iban]=DE89370400440532013000").json["id"]?.stringValue)
            _ = try await api.post("/v1/payment_methods/\(sepa)/attach", "customer=\(customer)")
            _ = try await api.post("/v1/payment_methods/\(cards[0])", "allow_redisplay=always")

            let byType = try await api.get("/v1/payment_methods", query: "customer=\(customer)&type=card&limit=100")
            #expect(byType.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == cards.reversed())
            #expect(byType.json["url"] == "/v1/payment_methods")
            let all = try await api.get("/v1/customers/\(customer)/payment_methods")
            #expect(all.json["data"]?.arrayValue?.count == 4)
            #expect(all.json["url"]?.stringValue == "/v1/customers/\(customer)/payment_methods")
            let always = try await api.get("/v1/customers/\(customer)/payment_methods", query: "allow_redisplay=always")
            #expect(always.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [cards[0]])
            let one = try await api.get("/v1/customers/\(customer)/payment_methods/\(sepa)")
            #expect(one.json["type"] == "sepa_debit")
            let other = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            #expect(try await api.get("/v1/customers/\(other)/payment_methods/\(sepa)").status == 404)
            #expect(try await api.get("/v1/payment_methods").status == 400, "customer is required")
            #expect(try await api.get("/v1/payment_methods", query: "customer=cus_nothing").status == 400)
            #expect(try await api.get("/v1/customers/cus_nothing/payment_methods").status == 404)
            let expanded = try await api.get("/v1/payment_methods/\(sepa)", query: "expand[]=customer")
            #expect(expanded.json["customer"]?["id"]?.stringValue == customer)
        }
    }

    /// A list writes each method straight from its row; it must be byte for byte what the model
    /// path renders for the same method, for every type and for text that needs escaping.
    @Test func listedMethodsAreTheSameBytesAsRetrievedOnes() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
            let awkward = "Zoë \"Q\" O'Brien \\ 東京\n\t/"
            // Names are one line (no CR or LF); metadata values may hold any text.
            let awkwardName = awkward.replacingOccurrences(of: "\n", with: " ")
            let forms = [
                cardForm("4242424242424242") + "&billing_details[name]=\(encoded(awkwardName))&billing_details[address][city]=\(encoded("Kraków"))"
                    + "&metadata[\(encoded("note \"1\""))]=\(encoded(awkward))",
                "type=sepa_debit&sepa_debit[iban]=DE89370400440532013000&billing_details[name]=Ana&billing_details[email]=\(encoded("a+b@example.com"))",
                "type=us_bank_account&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=000123456789"
                    + "&us_bank_account[account_holder_type]=company&billing_details[name]=\(encoded(awkwardName))",
            ]
            var ids: [String] = []
            for form in forms {
                let created = try await account.publishable.post("/v1/payment_methods", form)
                #expect(created.status == 200, "\(created.json)")
                let id = try #require(created.json["id"]?.stringValue)
                #expect(try await api.post("/v1/payment_methods/\(id)/attach", "customer=\(customer)").status == 200)
                ids.append(id)
            }
            // Changed after it was stored, so the row holds what an update wrote.
            #expect(try await api.post("/v1/payment_methods/\(ids[0])", "metadata[order]=\(encoded("#7 ✓"))").status == 200)

            let list = try await api.get("/v1/customers/\(customer)/payment_methods")
            #expect(list.status == 200)
            #expect(list.json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ids.reversed())
            for id in ids {
                let retrieved = try await api.get("/v1/payment_methods/\(id)")
                #expect(retrieved.status == 200)
                #expect(list.body.range(of: retrieved.body) != nil, "\(String(decoding: retrieved.body, as: UTF8.self))")
            }

            // expand still reaches into a list rendered this way.
            let expanded = try await api.get("/v1/payment_methods", query: "customer=\(customer)&expand[]=data.customer")
            #expect(expanded.json["data"]?.arrayValue?.allSatisfy { $0["customer"]?["id"]?.stringValue == customer } == true)
            #expect(expanded.json["data"]?.arrayValue?.count == 3)
        }
    }

    @Test func anUnknownCustomerIsNamedBeforeAnUnknownCursor() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let call = try await api.get("/v1/payment_methods", query: "customer=cus_nothing&starting_after=pm_nothing")
            #expect(call.status == 400)
            #expect(call.error?["param"] == "customer")
            let customer = try #require(try await api.post("/v1/customers").json["id"]?.stringValue)
            let cursor = try await api.get("/v1/payment_methods", query: "customer=\(customer)&starting_after=pm_nothing")
            #expect(cursor.error?["param"] == "starting_after")
            let empty = try await api.get("/v1/payment_methods", query: "customer=\(customer)")
            #expect(empty.status == 200)
            #expect(empty.json["data"] == [])
            #expect(try await api.delete("/v1/customers/\(customer)").status == 200)
            #expect(try await api.get("/v1/payment_methods", query: "customer=\(customer)").error?["param"] == "customer")
        }
    }
}
