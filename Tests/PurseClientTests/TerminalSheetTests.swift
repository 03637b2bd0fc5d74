import Foundation
import PurseClient
import TestSupport
import Testing

/// The runnable example end to end: `purse-example-backend` mints credentials with the secret
/// key, `purse-sheet` drives PurseClient with them, as a person at the terminal would.
// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("The terminal customer sheet through the example backend", .serialized)
struct TerminalSheetTests {
    @Test(arguments: ["ephemeral-key", "customer-session"])
    func addAuthenticateDeclinePickAndRemove(mode: String) async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let backend = try RunningProgram(
                "purse-example-backend", arguments: ["--port", "0"],
                environment: [
                    "PURSE_SECRET_KEY": account.secretKey, "PURSE_PUBLISHABLE_KEY": account.publishableKey,
                    "PURSE_URL": server.baseURL.absoluteString,
                ]
            )
            try await backend.waitFor("listening on port ")
            let port = try #require(backend.output.split(separator: "listening on port ").last?.prefix { $0.isNumber })
            let sheet = try RunningProgram(
                "purse-sheet", arguments: ["--backend", "http://127.0.0.1:\(port)", "--token", "demo-token-alice", "--mode", mode]
            )
            var mark = try await sheet.waitFor("(\(mode) mode)")

            sheet.type("add", "4242424242424242", "12/34", "123")
            mark = try await sheet.waitFor("Saved Visa •••• 4242 (pm_", after: mark)
            sheet.type("add", "4000000000000002", "12/34", "123")
            mark = try await sheet.waitFor("error: Your card was declined. [cardDeclined card_declined, request req_", after: mark)

            // 3D Secure: the sheet prints the page; the customer completes it, then presses Enter.
            sheet.type("add", "4000002500003155", "12/34", "123")
            mark = try await sheet.waitFor("Press Enter once you have finished there.", after: mark)
            let page = try #require(
                sheet.output.split(separator: "\n").last { $0.contains("/authenticate/") }?.trimmingCharacters(in: .whitespaces)
            )
            #expect(try await HTTPCall.send("POST", try #require(URL(string: page)), body: "action=complete").status == 200)
            sheet.type("")
            mark = try await sheet.waitFor("Saved Visa •••• 3155 (pm_", after: mark)

            sheet.type("list")
            mark = try await sheet.waitFor("2. Visa •••• 4242", after: mark)
            sheet.type("default 2")
            mark = try await sheet.waitFor("Default: Visa •••• 4242.", after: mark)
            sheet.type("list")
            mark = try await sheet.waitFor("* 2. Visa •••• 4242", after: mark)
            sheet.type("selection")
            mark = try await sheet.waitFor("Selected: Visa •••• 4242 (brand visa).", after: mark)
            sheet.type("remove 2")
            mark = try await sheet.waitFor("Removed Visa •••• 4242.", after: mark)
            sheet.type("list")
            mark = try await sheet.waitFor("1. Visa •••• 3155", after: mark)
            sheet.type("quit")
            try await sheet.waitFor("Bye.", after: mark)
            #expect(try await sheet.exitStatus() == 0)

            // What the merchant's server sees: alice's customer keeps the 3D Secure card only, no default.
            let customers = try await account.secret.get("/v1/customers", query: "email=alice%40example.com")
            let customer = try #require(customers.json["data"]?.arrayValue?.first?["id"]?.stringValue)
            let saved = try await account.secret.get("/v1/customers/\(customer)/payment_methods")
            #expect(saved.json["data"]?.arrayValue?.compactMap { $0["card"]?["last4"]?.stringValue } == ["3155"])
            #expect(try await account.secret.get("/v1/customers/\(customer)").json["invoice_settings"]?["default_payment_method"] == .null)
            #expect(!sheet.output.contains(account.secretKey), "the secret key never reaches the app")
            #expect(try await backend.stop() == 0, "the backend shuts down cleanly on SIGTERM")
        }
    }

    /// A developer watches a card expire: the backend's customers live on a test clock, and once
    /// the clock passes the card's month the sheet no longer shows it (the settings hide expired
    /// cards). The sheet's key has run out in clock time by then; PurseClient renews it on the 401.
    @Test func aCardDisappearsWhenTheTestClockPassesItsExpiry() async throws {
        try await LiveServer.with { server in
            let account = try await server.makeAccount()
            let api = account.secret
            #expect(try await api.post("/v1/customer_sheet_settings/default", "saved_payment_method_filter[hide_expired]=true").status == 200)
            // A card must be unexpired by the wall clock to be saved: one expiring in June four
            // years on, and a clock from the first of that June to mid-July.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            let cardYear = calendar.component(.year, from: Date()) + 4
            func time(month: Int, day: Int) throws -> Int {
                Int(try #require(calendar.date(from: DateComponents(year: cardYear, month: month, day: day))).timeIntervalSince1970)
            }
            let (june1, july15) = (try time(month: 6, day: 1), try time(month: 7, day: 15))
            let clock = try #require(try await api.post("/v1/test_helpers/test_clocks", "frozen_time=\(june1)").json["id"]?.stringValue)
            let backend = try RunningProgram(
                "purse-example-backend", arguments: ["--port", "0"],
                environment: [
                    "PURSE_SECRET_KEY": account.secretKey, "PURSE_PUBLISHABLE_KEY": account.publishableKey,
                    "PURSE_URL": server.baseURL.absoluteString, "EXAMPLE_TEST_CLOCK": clock,
                ]
            )
            try await backend.waitFor("listening on port ")
            let port = try #require(backend.output.split(separator: "listening on port ").last?.prefix { $0.isNumber })
            let sheet = try RunningProgram("purse-sheet", arguments: ["--backend", "http://127.0.0.1:\(port)", "--token", "demo-token-alice"])
            var mark = try await sheet.waitFor("(ephemeral-key mode)")
            sheet.type("add", "4242424242424242", "06/\(cardYear % 100)", "123")
            mark = try await sheet.waitFor("Saved Visa •••• 4242 (pm_", after: mark)
            sheet.type("list")
            mark = try await sheet.waitFor("1. Visa •••• 4242", after: mark)

            // Mid-July: the card's month is over.
            #expect(try await api.post("/v1/test_helpers/test_clocks/\(clock)/advance", "frozen_time=\(july15)").status == 200)
            for _ in 0..<300 where try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["status"] != "ready" {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await api.get("/v1/test_helpers/test_clocks/\(clock)").json["frozen_time"]?.intValue == july15)
            sheet.type("list")
            mark = try await sheet.waitFor("No saved payment methods.", after: mark)
            sheet.type("quit")
            try await sheet.waitFor("Bye.", after: mark)
            #expect(try await sheet.exitStatus() == 0)

            // The customer the backend made is on the clock, and still has the card.
            let customers = try await api.get("/v1/customers", query: "test_clock=\(clock)")
            let customer = try #require(customers.json["data"]?.arrayValue?.first)
            #expect(customer["email"] == "alice@example.com" && customer["created"]?.intValue == june1)
            let id = try #require(customer["id"]?.stringValue)
            #expect(try await api.get("/v1/customers/\(id)/payment_methods").json["data"]?.arrayValue?.count == 1)
            #expect(try await backend.stop() == 0)
        }
    }
}
