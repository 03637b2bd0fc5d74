import Foundation
import PurseCore
import PurseModels
import TestSupport
import Testing

@Suite("Sheet settings: the resource")
struct SheetSettingsResourceTests {
    @Test func everyAccountHasADefaultWithTheInitialValues() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let settings = try await api.get("/v1/customer_sheet_settings/default")
            #expect(settings.status == 200)
            #expect(settings.json["object"] == "customer_sheet_settings")
            #expect(settings.json["is_default"] == true)
            #expect(settings.json["payment_method_types"] == ["card", "us_bank_account", "sepa_debit"])
            #expect(
                settings.json["billing_details_collection"] == [
                    "name": "automatic", "email": "automatic", "phone": "automatic", "address": "automatic",
                    "attach_defaults_to_payment_method": false,
                ])
            #expect(
                settings.json["saved_payment_method_filter"] == [
                    "card": ["funding": [], "brands": []], "hide_expired": false, "allow_redisplay": [], "countries": [],
                ])
            #expect(settings.json["duplicate_cards"] == "allow")
            let id = try #require(settings.json["id"]?.stringValue)
            #expect(id.hasPrefix("css_"))
            #expect(try await api.get("/v1/customer_sheet_settings/\(id)").json == settings.json)
            #expect(try await api.delete("/v1/customer_sheet_settings/default").status == 400)
            #expect(try await api.delete("/v1/customer_sheet_settings/\(id)").status == 400)
        }
    }

    @Test func updatesMergeAndEmptyClearsAList() async throws {
        try await LiveServer.with { server in
            let api = try await server.makeAccount().secret
            let created = try await api.post(
                "/v1/customer_sheet_settings",
                "name=Strict&billing_details_collection[name]=always&saved_payment_method_filter[card][brands][]=visa&saved_payment_method_filter[countries][]=US&default_billing_details[address][country]=US"
            )
            #expect(created.status == 200, "\(created.json)")
            let id = try #require(created.json["id"]?.stringValue)
            #expect(created.json["is_default"] == false)
            let updated = try await api.post(
                "/v1/customer_sheet_settings/\(id)",
                "billing_details_collection[email]=never&saved_payment_method_filter[card][brands]=&default_billing_details[address][city]=Austin"
            )
            #expect(updated.json["billing_details_collection"]?["name"] == "always", "merged, not replaced")
            #expect(updated.json["billing_details_collection"]?["email"] == "never")
            #expect(updated.json["saved_payment_method_filter"]?["card"]?["brands"] == [], "an empty value clears a list")
            #expect(updated.json["saved_payment_method_filter"]?["countries"] == ["US"])
            #expect(updated.json["default_billing_details"]?["address"]?["country"] == "US")
            #expect(updated.json["default_billing_details"]?["address"]?["city"] == "Austin")
            #expect(updated.json["name"] == "Strict")
            let list = try await api.get("/v1/customer_sheet_settings")
            #expect(list.json["data"]?.arrayValue?.count == 2)
            #expect(try await api.delete("/v1/customer_sheet_settings/\(id)").json["deleted"] == true)
            #expect(try await api.get("/v1/customer_sheet_settings/\(id)").status == 404)
        }
    }

    @Test(arguments: [
        ("payment_method_types[0]=paypal", "payment_method_types[0]"),
        ("payment_method_types=", "payment_method_types"),
        ("billing_details_collection[name]=sometimes", "billing_details_collection[name]"),
        ("billing_details_collection[address]=always", "billing_details_collection[address]"),
        ("saved_payment_method_filter[card][funding][0]=gold", "saved_payment_method_filter[card][funding][0]"),
        ("saved_payment_method_filter[card][brands][0]=maestro", "saved_payment_method_filter[card][brands][0]"),
        ("saved_payment_method_filter[nope]=1", "saved_payment_method_filter[nope]"),
        ("saved_payment_method_filter[countries][0]=usa", "saved_payment_method_filter[countries][0]"),
        ("saved_payment_method_filter[hide_expired]=maybe", "saved_payment_method_filter[hide_expired]"),
        ("duplicate_cards=merge", "duplicate_cards"),
        ("default_billing_details[address][planet]=Mars", "default_billing_details[address][planet]"),
    ])
    func badValuesAre400sNamingTheParameterAndChangeNothing(form: String, param: String) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let before = try await account.secret.get("/v1/customer_sheet_settings/default")
            let call = try await account.secret.post("/v1/customer_sheet_settings/default", form)
            #expect(call.status == 400, "\(call.json)")
            #expect(call.error?["param"]?.stringValue == param)
            #expect(try await account.secret.get("/v1/customer_sheet_settings/default").json == before.json)
            #expect(try await account.publishable.post("/v1/customer_sheet_settings", "name=x").status == 403)
        }
    }
}

/// One billing rule and what a client's save must get under it.
struct RuleCase: Sendable, CustomStringConvertible {
    let settings: String
    let type: String
    let billing: String
    /// nil when the save succeeds; else the parameter the 400 names (without the prefix).
    let refusedParam: String?
    let expectedName: String?

    var description: String { "\(settings) | \(type) | \(billing)" }

    static let bank =
        "&us_bank_account[routing_number]=110000000&us_bank_account[account_number]=000123456789&us_bank_account[account_holder_type]=individual"
    static let sepa = "&sepa_debit[iban]=DE89370400440532013000"
    static let card = "&card[token]=tok_visa"

    static func details(_ type: String) -> String {
        switch type {
        case "us_bank_account": bank
        case "sepa_debit": sepa
        default: card
        }
    }
}

@Suite("Sheet settings: billing-details rules for client credentials")
struct SheetRulesTests {
    static let cases: [RuleCase] = [
        // always
        RuleCase(
            settings: "billing_details_collection[name]=always", type: "card", billing: "", refusedParam: "billing_details[name]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[name]=always", type: "card", billing: "&billing_details[name]=Jo", refusedParam: nil,
            expectedName: "Jo"),
        RuleCase(
            settings:
                "billing_details_collection[name]=always&billing_details_collection[attach_defaults_to_payment_method]=true&default_billing_details[name]=Dee",
            type: "card", billing: "", refusedParam: nil, expectedName: "Dee"),
        RuleCase(
            settings: "billing_details_collection[email]=always", type: "us_bank_account", billing: "&billing_details[name]=Jo",
            refusedParam: "billing_details[email]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[phone]=always", type: "sepa_debit",
            billing: "&billing_details[name]=Jo&billing_details[email]=j%40x.io", refusedParam: "billing_details[phone]", expectedName: nil),
        // never: the default, as stock SDKs send it, is accepted; anything else is not
        RuleCase(
            settings: "billing_details_collection[name]=never&default_billing_details[name]=Dee", type: "card", billing: "&billing_details[name]=Dee",
            refusedParam: nil, expectedName: "Dee"),
        RuleCase(
            settings: "billing_details_collection[name]=never&default_billing_details[name]=Dee", type: "card",
            billing: "&billing_details[name]=Other", refusedParam: "billing_details[name]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[name]=never&default_billing_details[name]=Dee", type: "card", billing: "", refusedParam: nil,
            expectedName: nil),
        RuleCase(
            settings:
                "billing_details_collection[name]=never&default_billing_details[name]=Dee&billing_details_collection[attach_defaults_to_payment_method]=true",
            type: "card", billing: "", refusedParam: nil, expectedName: "Dee"),
        RuleCase(
            settings: "billing_details_collection[email]=never", type: "card", billing: "&billing_details[email]=x%40y.z",
            refusedParam: "billing_details[email]", expectedName: nil),
        // automatic: only what the type needs
        RuleCase(settings: "billing_details_collection[name]=automatic", type: "card", billing: "", refusedParam: nil, expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[name]=automatic", type: "us_bank_account", billing: "", refusedParam: "billing_details[name]",
            expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[name]=automatic", type: "sepa_debit", billing: "&billing_details[email]=j%40x.io",
            refusedParam: "billing_details[name]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[email]=automatic", type: "sepa_debit", billing: "&billing_details[name]=Jo",
            refusedParam: "billing_details[email]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[email]=automatic", type: "us_bank_account", billing: "&billing_details[name]=Jo", refusedParam: nil,
            expectedName: "Jo"),
        // address
        RuleCase(
            settings: "billing_details_collection[address]=full", type: "card", billing: "&billing_details[address][city]=Paris",
            refusedParam: "billing_details[address][line1]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[address]=full", type: "card",
            billing:
                "&billing_details[address][line1]=1+Main&billing_details[address][city]=Austin&billing_details[address][postal_code]=78701&billing_details[address][country]=US",
            refusedParam: "billing_details[address][state]", expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[address]=full", type: "card",
            billing:
                "&billing_details[address][line1]=1+Rue&billing_details[address][city]=Paris&billing_details[address][postal_code]=75001&billing_details[address][country]=FR",
            refusedParam: nil, expectedName: nil),
        RuleCase(
            settings: "billing_details_collection[address]=never", type: "card", billing: "&billing_details[address][city]=Paris",
            refusedParam: "billing_details[address]", expectedName: nil),
        // types
        RuleCase(
            settings: "payment_method_types[]=card", type: "sepa_debit", billing: "&billing_details[name]=Jo&billing_details[email]=j%40x.io",
            refusedParam: "type", expectedName: nil),
        RuleCase(settings: "payment_method_types[]=sepa_debit", type: "card", billing: "", refusedParam: "type", expectedName: nil),
    ]

    @Test(arguments: cases)
    func atCreateWithThePublishableKey(rule: RuleCase) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            #expect(try await account.secret.post("/v1/customer_sheet_settings/default", rule.settings).status == 200)
            let form = "type=\(rule.type)" + RuleCase.details(rule.type) + rule.billing
            let call = try await account.publishable.post("/v1/payment_methods", form)
            if let param = rule.refusedParam {
                #expect(call.status == 400, "\(call.json)")
                #expect(call.error?["param"]?.stringValue == param)
            } else {
                #expect(call.status == 200, "\(call.json)")
                #expect(call.json["billing_details"]?["name"]?.stringValue == rule.expectedName)
            }
            // The secret key is never restricted.
            #expect(try await account.secret.post("/v1/payment_methods", form).status == 200)
        }
    }

    @Test(arguments: cases)
    func atConfirmWithThePublishableKey(rule: RuleCase) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let settings = try #require(try await account.secret.post("/v1/customer_sheet_settings", rule.settings).json["id"]?.stringValue)
            let customer = try #require(try await account.secret.post("/v1/customers").json["id"]?.stringValue)
            let intent = try await account.secret.post(
                "/v1/setup_intents",
                "customer=\(customer)&customer_sheet_settings=\(settings)&payment_method_types[]=card&payment_method_types[]=us_bank_account&payment_method_types[]=sepa_debit"
            )
            let id = try #require(intent.json["id"]?.stringValue)
            let data = ("type=\(rule.type)" + RuleCase.details(rule.type) + rule.billing)
                .split(separator: "&").map { part -> String in
                    let pieces = part.split(separator: "=", maxSplits: 1)
                    let key = String(pieces[0])
                    let first = key.prefix { $0 != "[" }
                    return "payment_method_data[\(first)]\(key.dropFirst(first.count))=\(pieces.count > 1 ? pieces[1] : "")"
                }.joined(separator: "&")
            let mandate =
                rule.type == "card"
                ? "" : "&mandate_data[customer_acceptance][type]=online&mandate_data[customer_acceptance][online][infer_from_client]=true"
            let call = try await account.publishable.post(
                "/v1/setup_intents/\(id)/confirm",
                "client_secret=\(intent.json["client_secret"]?.stringValue ?? "")&\(data)\(mandate)&expand[]=payment_method"
            )
            if let param = rule.refusedParam {
                #expect(call.status == 400, "\(call.json)")
                #expect(call.error?["param"]?.stringValue == ParameterPath.nested(param, under: "payment_method_data"))
                #expect(
                    try await account.secret.get("/v1/setup_intents/\(id)").json["status"] == "requires_payment_method", "refused: nothing changed")
            } else {
                #expect(call.status == 200, "\(call.json)")
                #expect(call.json["status"] == "succeeded")
                #expect(call.json["payment_method"]?["billing_details"]?["name"]?.stringValue == rule.expectedName)
            }
        }
    }
}

extension RuleCase: CustomTestStringConvertible {
    var testDescription: String { description }
}
