import Foundation
import Postgres
import PurseCore
import PurseModels
import TestSupport
import Testing

/// Two accounts × every route × every credential (spec §2: no query crosses accounts). Account B
/// holds every kind of credential and names account A's objects wherever a route takes an object,
/// in its path, body or query. Each answer must be a refusal that B would also get for an object
/// that does not exist at all (so it reveals nothing, not even existence), and A's rows must be
/// exactly as they were.
@Suite("Two accounts × every route × every credential")
struct TenantIsolationMatrixTests {
    enum Caller: String, CaseIterable, CustomStringConvertible {
        case secret, publishable, publishableWithClientSecret, ephemeralKey, sessionKey
        var description: String { rawValue }

        /// Without `publishableWithClientSecret`, which only the routes taking a client secret tell apart.
        static let standard: [Caller] = [.secret, .publishable, .ephemeralKey, .sessionKey]
    }

    /// Account A's objects, or their ghosts: ids and secrets of the same shape that name nothing.
    struct Targets: Sendable {
        var customer: String
        var attachedCard: String
        var unattachedCard: String
        var setupIntent: String
        var setupIntentSecret: String
        var authenticationToken: String
        var customerSession: String
        var customerSessionSecret: String
        var ephemeralKey: String
        var sheetSettings: String
        var defaultSheetSettings: String
        var event: String
        var webhookEndpoint: String
        /// A Financial Connections session that linked an account, its client secret, the
        /// account, and the token of its test-bank page.
        var linkSession: String
        var linkSessionSecret: String
        var linkedAccount: String
        var testBankToken: String
        /// A customer portal configuration, and a portal session with its URL's token.
        var portalConfiguration: String
        var portalSession: String
        var portalToken: String
        /// A test clock, with the victim's customer made on it.
        var testClock: String
        var clockedCustomer: String

        /// Every value, ids before the secrets that contain them.
        var all: [String] {
            [
                customer, attachedCard, unattachedCard, setupIntent, setupIntentSecret, authenticationToken, customerSession,
                customerSessionSecret, ephemeralKey, sheetSettings, defaultSheetSettings, event, webhookEndpoint, linkSession,
                linkSessionSecret, linkedAccount, testBankToken, portalConfiguration, portalSession, portalToken, testClock,
                clockedCustomer,
            ]
        }

        /// The same shapes with the random part reversed (and a secret's embedded id swapped for
        /// its ghost), so every ghost is well-formed and names nothing. The intent's client secret
        /// checks itself (an HMAC of the id), so its ghost is the genuine secret of the ghost id.
        func ghosts(_ secrets: DerivedSecrets) -> Targets {
            var ghostOf: [(real: String, ghost: String)] = []
            func ghost(_ value: String) -> String {
                let cut = value.lastIndex(of: "_").map { value.index(after: $0) } ?? value.startIndex
                let head = ghostOf.reduce(String(value[..<cut])) { $0.replacingOccurrences(of: $1.real, with: $1.ghost) }
                let made = head + String(value[cut...].reversed())
                ghostOf.append((value, made))
                return made
            }
            let ghostIntent = ghost(setupIntent)
            let ghostSession = ghost(linkSession)
            let ghostPortalSession = ghost(portalSession)
            return Targets(
                customer: ghost(customer), attachedCard: ghost(attachedCard), unattachedCard: ghost(unattachedCard),
                setupIntent: ghostIntent, setupIntentSecret: secrets.setupIntentClientSecret(ghostIntent),
                authenticationToken: ghost(authenticationToken), customerSession: ghost(customerSession),
                customerSessionSecret: ghost(customerSessionSecret), ephemeralKey: ghost(ephemeralKey),
                sheetSettings: ghost(sheetSettings), defaultSheetSettings: ghost(defaultSheetSettings), event: ghost(event),
                webhookEndpoint: ghost(webhookEndpoint), linkSession: ghostSession,
                linkSessionSecret: secrets.financialConnectionsClientSecret(ghostSession), linkedAccount: ghost(linkedAccount),
                testBankToken: secrets.testBankPageToken(ghostSession), portalConfiguration: ghost(portalConfiguration),
                portalSession: ghostPortalSession, portalToken: secrets.portalSessionToken(ghostPortalSession),
                testClock: ghost(testClock), clockedCustomer: ghost(clockedCustomer)
            )
        }
    }

    /// Account B: its own objects, and a client for each of its credentials.
    struct Attacker: Sendable {
        let account: TestAccount
        let customer: String
        let attachedCard: String
        let unattachedCard: String
        let setupIntent: String
        let setupIntentSecret: String
        let authenticationToken: String
        let sessionSecret: String
        let ephemeralKey: String
        let sessionKey: String
        /// B's own Financial Connections session (pending), and its page's token.
        let linkSession: String
        let testBankToken: String
        /// B's own portal session, its URL's token and its pages' form token.
        let portalSession: String
        let portalToken: String
        let portalFormToken: String

        func client(_ caller: Caller) -> APIClient {
            switch caller {
            case .secret: account.secret
            case .publishable, .publishableWithClientSecret: account.publishable
            case .ephemeralKey: account.client(key: ephemeralKey)
            case .sessionKey: account.client(key: sessionKey)
            }
        }

        /// `client_secret=` of B's own intent, for the caller that sends one.
        func clientSecret(_ caller: Caller, after separator: String) -> String {
            caller == .publishableWithClientSecret ? "\(separator)client_secret=\(setupIntentSecret)" : ""
        }
    }

    /// One way to call a route: naming A's objects, or (for routes that take none) in B's own account.
    struct Probe: Sendable {
        enum Kind { case namesVictim, ownAccount }
        /// `METHOD /path/{param}` as the server registered it.
        let route: String
        let kind: Kind
        let callers: [Caller]
        let request: @Sendable (Targets, Attacker, Caller) -> (path: String, body: String?)

        var method: String { String(route.prefix { $0 != " " }) }

        static func victim(
            _ route: String, callers: [Caller] = Caller.standard,
            _ request: @escaping @Sendable (Targets, Attacker, Caller) -> (path: String, body: String?)
        ) -> Probe {
            Probe(route: route, kind: .namesVictim, callers: callers, request: request)
        }

        static func ownAccount(_ route: String, _ request: @escaping @Sendable (Attacker) -> (path: String, body: String?)) -> Probe {
            Probe(route: route, kind: .ownAccount, callers: Caller.standard) { _, attacker, _ in request(attacker) }
        }
    }

    static let probes: [Probe] = [
        // Public, and without tenant data.
        .ownAccount("GET /healthz") { _ in ("/healthz", nil) },
        .ownAccount("GET /readyz") { _ in ("/readyz", nil) },
        .ownAccount("GET /metrics") { _ in ("/metrics", nil) },
        .ownAccount("GET /openapi.json") { _ in ("/openapi.json", nil) },
        // The 3D Secure page's token belongs to one intent: B's token on A's intent, A's token on B's.
        .victim("GET /v1/setup_intents/{id}/authenticate/{token}") { a, b, _ in
            ("/v1/setup_intents/\(a.setupIntent)/authenticate/\(b.authenticationToken)", nil)
        },
        .victim("GET /v1/setup_intents/{id}/authenticate/{token}") { a, b, _ in
            ("/v1/setup_intents/\(b.setupIntent)/authenticate/\(a.authenticationToken)", nil)
        },
        .victim("POST /v1/setup_intents/{id}/authenticate/{token}") { a, b, _ in
            ("/v1/setup_intents/\(a.setupIntent)/authenticate/\(b.authenticationToken)", "action=complete")
        },
        .victim("POST /v1/setup_intents/{id}/authenticate/{token}") { a, b, _ in
            ("/v1/setup_intents/\(b.setupIntent)/authenticate/\(a.authenticationToken)", "action=complete")
        },
        // The microdeposits page takes the same tokens: neither account's reaches the other's intent.
        .victim("GET /v1/setup_intents/{id}/verify_microdeposits/{token}") { a, b, _ in
            ("/v1/setup_intents/\(a.setupIntent)/verify_microdeposits/\(b.authenticationToken)", nil)
        },
        .victim("GET /v1/setup_intents/{id}/verify_microdeposits/{token}") { a, b, _ in
            ("/v1/setup_intents/\(b.setupIntent)/verify_microdeposits/\(a.authenticationToken)", nil)
        },
        .victim("POST /v1/setup_intents/{id}/verify_microdeposits/{token}") { a, b, _ in
            ("/v1/setup_intents/\(a.setupIntent)/verify_microdeposits/\(b.authenticationToken)", "descriptor_code=SM11AA")
        },
        .victim("POST /v1/setup_intents/{id}/verify_microdeposits/{token}") { a, b, _ in
            ("/v1/setup_intents/\(b.setupIntent)/verify_microdeposits/\(a.authenticationToken)", "descriptor_code=SM11AA")
        },

        // The test bank's token belongs to one session: B's token on A's session, A's token on B's.
        .victim("GET /v1/financial_connections/test_bank/{token}") { a, b, _ in
            ("/v1/financial_connections/test_bank/\(b.testBankToken)?session=\(a.linkSession)", nil)
        },
        .victim("GET /v1/financial_connections/test_bank/{token}") { a, b, _ in
            ("/v1/financial_connections/test_bank/\(a.testBankToken)?session=\(b.linkSession)", nil)
        },
        .victim("POST /v1/financial_connections/test_bank/{token}") { a, b, _ in
            ("/v1/financial_connections/test_bank/\(b.testBankToken)?session=\(a.linkSession)", "account=checking&action=cancel")
        },
        .victim("POST /v1/financial_connections/test_bank/{token}") { a, b, _ in
            ("/v1/financial_connections/test_bank/\(a.testBankToken)?session=\(b.linkSession)", "account=checking&action=link")
        },

        // Customers.
        .victim("POST /v1/customers") { a, _, _ in ("/v1/customers", "payment_method=\(a.unattachedCard)") },
        .victim("POST /v1/customers") { a, _, _ in
            ("/v1/customers", "payment_method=\(a.attachedCard)&invoice_settings[default_payment_method]=\(a.attachedCard)")
        },
        .ownAccount("GET /v1/customers") { _ in ("/v1/customers", nil) },
        .victim("GET /v1/customers") { a, _, _ in ("/v1/customers?starting_after=\(a.customer)", nil) },
        .victim("GET /v1/customers") { a, _, _ in ("/v1/customers?ending_before=\(a.customer)", nil) },
        .victim("GET /v1/customers/search") { _, _, _ in ("/v1/customers/search?query=email:'victim%40example.com'", nil) },
        .victim("GET /v1/customers/search") { _, _, _ in ("/v1/customers/search?query=metadata['marker']:'victim'", nil) },
        .victim("GET /v1/customers/search") { _, _, _ in
            ("/v1/customers/search?query=name~'ictim'&expand[]=total_count", nil)
        },
        .victim("GET /v1/customers/{id}") { a, _, _ in ("/v1/customers/\(a.customer)", nil) },
        .victim("POST /v1/customers/{id}") { a, _, _ in ("/v1/customers/\(a.customer)", "name=Mallory") },
        .victim("POST /v1/customers/{id}") { a, b, _ in
            ("/v1/customers/\(b.customer)", "invoice_settings[default_payment_method]=\(a.attachedCard)")
        },
        .victim("DELETE /v1/customers/{id}") { a, _, _ in ("/v1/customers/\(a.customer)", nil) },
        .victim("GET /v1/customers") { a, _, _ in ("/v1/customers?test_clock=\(a.testClock)", nil) },
        .victim("POST /v1/customers") { a, _, _ in ("/v1/customers", "name=Mallory&test_clock=\(a.testClock)") },
        .victim("GET /v1/customers/{id}") { a, _, _ in ("/v1/customers/\(a.clockedCustomer)?expand[]=test_clock", nil) },

        // Test clocks.
        .ownAccount("POST /v1/test_helpers/test_clocks") { _ in ("/v1/test_helpers/test_clocks", "frozen_time=1700000000") },
        .ownAccount("GET /v1/test_helpers/test_clocks") { _ in ("/v1/test_helpers/test_clocks", nil) },
        .victim("GET /v1/test_helpers/test_clocks") { a, _, _ in ("/v1/test_helpers/test_clocks?starting_after=\(a.testClock)", nil) },
        .victim("GET /v1/test_helpers/test_clocks/{id}") { a, _, _ in ("/v1/test_helpers/test_clocks/\(a.testClock)", nil) },
        .victim("POST /v1/test_helpers/test_clocks/{id}/advance") { a, _, _ in
            ("/v1/test_helpers/test_clocks/\(a.testClock)/advance", "frozen_time=1700086400")
        },
        .victim("DELETE /v1/test_helpers/test_clocks/{id}") { a, _, _ in ("/v1/test_helpers/test_clocks/\(a.testClock)", nil) },
        .victim("POST /v1/customers/{id}/revoke_credentials") { a, _, _ in ("/v1/customers/\(a.customer)/revoke_credentials", "") },

        // Payment methods.
        .ownAccount("POST /v1/payment_methods") { _ in ("/v1/payment_methods", "type=card&card[token]=tok_visa") },
        .ownAccount("GET /v1/payment_methods") { b in ("/v1/payment_methods?customer=\(b.customer)", nil) },
        .victim("GET /v1/payment_methods") { a, _, _ in ("/v1/payment_methods?customer=\(a.customer)", nil) },
        .victim("GET /v1/payment_methods") { a, b, _ in ("/v1/payment_methods?customer=\(b.customer)&starting_after=\(a.attachedCard)", nil) },
        .victim("GET /v1/payment_methods/{id}") { a, _, _ in ("/v1/payment_methods/\(a.attachedCard)", nil) },
        .victim("GET /v1/payment_methods/{id}") { a, _, _ in ("/v1/payment_methods/\(a.unattachedCard)", nil) },
        .victim("POST /v1/payment_methods/{id}") { a, _, _ in ("/v1/payment_methods/\(a.attachedCard)", "metadata[owner]=mallory") },
        .victim("POST /v1/payment_methods/{id}/attach") { a, b, _ in ("/v1/payment_methods/\(a.unattachedCard)/attach", "customer=\(b.customer)") },
        .victim("POST /v1/payment_methods/{id}/attach") { a, b, _ in ("/v1/payment_methods/\(a.attachedCard)/attach", "customer=\(b.customer)") },
        .victim("POST /v1/payment_methods/{id}/attach") { a, b, _ in ("/v1/payment_methods/\(b.unattachedCard)/attach", "customer=\(a.customer)") },
        .victim("POST /v1/payment_methods/{id}/detach") { a, _, _ in ("/v1/payment_methods/\(a.attachedCard)/detach", "") },
        .ownAccount("GET /v1/customers/{id}/payment_methods") { b in ("/v1/customers/\(b.customer)/payment_methods", nil) },
        .victim("GET /v1/customers/{id}/payment_methods") { a, _, _ in ("/v1/customers/\(a.customer)/payment_methods", nil) },
        .victim("GET /v1/customers/{id}/payment_methods") { a, b, _ in
            ("/v1/customers/\(b.customer)/payment_methods?starting_after=\(a.attachedCard)", nil)
        },
        .victim("GET /v1/customers/{id}/payment_methods/{payment_method}") { a, _, _ in
            ("/v1/customers/\(a.customer)/payment_methods/\(a.attachedCard)", nil)
        },
        .victim("GET /v1/customers/{id}/payment_methods/{payment_method}") { a, b, _ in
            ("/v1/customers/\(b.customer)/payment_methods/\(a.attachedCard)", nil)
        },
        .victim("GET /v1/customers/{id}/selected_payment_option") { a, _, _ in ("/v1/customers/\(a.customer)/selected_payment_option", nil) },
        .victim("POST /v1/customers/{id}/selected_payment_option") { a, _, _ in
            ("/v1/customers/\(a.customer)/selected_payment_option", "option=apple_pay")
        },
        .victim("POST /v1/customers/{id}/selected_payment_option") { a, b, _ in
            ("/v1/customers/\(b.customer)/selected_payment_option", "option=\(a.attachedCard)")
        },

        // Ephemeral keys and customer sessions: for A's customer, or bound to A's settings.
        .victim("POST /v1/ephemeral_keys") { a, _, _ in ("/v1/ephemeral_keys", "customer=\(a.customer)") },
        .victim("POST /v1/ephemeral_keys") { a, b, _ in ("/v1/ephemeral_keys", "customer=\(b.customer)&customer_sheet_settings=\(a.sheetSettings)") },
        .victim("DELETE /v1/ephemeral_keys/{id}") { a, _, _ in ("/v1/ephemeral_keys/\(a.ephemeralKey)", nil) },
        .victim("POST /v1/customer_sessions") { a, _, _ in
            ("/v1/customer_sessions", "customer=\(a.customer)&components[customer_sheet][enabled]=true")
        },
        .victim("POST /v1/customer_sessions") { a, b, _ in
            ("/v1/customer_sessions", "customer=\(b.customer)&components[customer_sheet][enabled]=true&customer_sheet_settings=\(a.sheetSettings)")
        },
        .victim("DELETE /v1/customer_sessions/{id}") { a, _, _ in ("/v1/customer_sessions/\(a.customerSession)", nil) },

        // Setup intents.
        .victim("POST /v1/setup_intents") { a, _, _ in ("/v1/setup_intents", "customer=\(a.customer)") },
        .victim("POST /v1/setup_intents") { a, _, _ in ("/v1/setup_intents", "payment_method=\(a.unattachedCard)") },
        .victim("POST /v1/setup_intents") { a, _, _ in ("/v1/setup_intents", "customer_sheet_settings=\(a.sheetSettings)") },
        .ownAccount("GET /v1/setup_intents") { _ in ("/v1/setup_intents", nil) },
        .victim("GET /v1/setup_intents") { a, _, _ in ("/v1/setup_intents?customer=\(a.customer)", nil) },
        .victim("GET /v1/setup_intents") { a, _, _ in ("/v1/setup_intents?payment_method=\(a.attachedCard)", nil) },
        .victim("GET /v1/setup_intents") { a, _, _ in ("/v1/setup_intents?starting_after=\(a.setupIntent)", nil) },
        .victim("GET /v1/setup_intents/{id}", callers: Caller.allCases) { a, b, caller in
            ("/v1/setup_intents/\(a.setupIntent)" + b.clientSecret(caller, after: "?"), nil)
        },
        // A's own client secret, leaked, is no use with B's key.
        .victim("GET /v1/setup_intents/{id}") { a, _, _ in ("/v1/setup_intents/\(a.setupIntent)?client_secret=\(a.setupIntentSecret)", nil) },
        .victim("POST /v1/setup_intents/{id}") { a, _, _ in ("/v1/setup_intents/\(a.setupIntent)", "description=mallory") },
        .victim("POST /v1/setup_intents/{id}") { a, b, _ in ("/v1/setup_intents/\(b.setupIntent)", "customer=\(a.customer)") },
        .victim("POST /v1/setup_intents/{id}") { a, b, _ in ("/v1/setup_intents/\(b.setupIntent)", "payment_method=\(a.unattachedCard)") },
        .victim("POST /v1/setup_intents/{id}/confirm", callers: Caller.allCases) { a, b, caller in
            ("/v1/setup_intents/\(a.setupIntent)/confirm", "payment_method=pm_card_visa" + b.clientSecret(caller, after: "&"))
        },
        .victim("POST /v1/setup_intents/{id}/confirm") { a, _, _ in
            ("/v1/setup_intents/\(a.setupIntent)/confirm", "payment_method=pm_card_visa&client_secret=\(a.setupIntentSecret)")
        },
        .victim("POST /v1/setup_intents/{id}/confirm", callers: Caller.allCases) { a, b, caller in
            ("/v1/setup_intents/\(b.setupIntent)/confirm", "payment_method=\(a.unattachedCard)" + b.clientSecret(caller, after: "&"))
        },
        .victim("POST /v1/setup_intents/{id}/cancel") { a, _, _ in ("/v1/setup_intents/\(a.setupIntent)/cancel", "") },
        .victim("POST /v1/setup_intents/{id}/verify_microdeposits", callers: Caller.allCases) { a, b, caller in
            ("/v1/setup_intents/\(a.setupIntent)/verify_microdeposits", "descriptor_code=SM11AA" + b.clientSecret(caller, after: "&"))
        },
        .victim("POST /v1/setup_intents/{id}/verify_microdeposits") { a, _, _ in
            ("/v1/setup_intents/\(a.setupIntent)/verify_microdeposits", "descriptor_code=SM11AA&client_secret=\(a.setupIntentSecret)")
        },

        // Financial Connections: A's intent, A's session by id or client secret, A's linked account.
        .victim("POST /v1/setup_intents/{id}/link_account_sessions", callers: Caller.allCases) { a, b, caller in
            (
                "/v1/setup_intents/\(a.setupIntent)/link_account_sessions",
                "payment_method_data[type]=us_bank_account" + b.clientSecret(caller, after: "&")
            )
        },
        .victim("POST /v1/connections/link_account_sessions_for_deferred_payment") { a, _, _ in
            ("/v1/connections/link_account_sessions_for_deferred_payment", "unique_id=elements_session_x&customer=\(a.customer)")
        },
        .victim("POST /v1/financial_connections/sessions/synchronize") { a, _, _ in
            ("/v1/financial_connections/sessions/synchronize", "client_secret=\(a.linkSessionSecret)&mobile[application_id]=com.mallory")
        },
        .victim("GET /v1/link_account_sessions/session_receipt") { a, _, _ in
            ("/v1/link_account_sessions/session_receipt?client_secret=\(a.linkSessionSecret)", nil)
        },
        .victim("GET /v1/link_account_sessions/list_accounts") { a, _, _ in
            ("/v1/link_account_sessions/list_accounts?client_secret=\(a.linkSessionSecret)", nil)
        },
        .victim("POST /v1/link_account_sessions/complete") { a, _, _ in
            ("/v1/link_account_sessions/complete", "client_secret=\(a.linkSessionSecret)")
        },
        .victim("GET /v1/financial_connections/sessions/{id}") { a, _, _ in ("/v1/financial_connections/sessions/\(a.linkSession)", nil) },
        .victim("GET /v1/financial_connections/accounts/{id}") { a, _, _ in ("/v1/financial_connections/accounts/\(a.linkedAccount)", nil) },
        .victim("POST /v1/payment_methods") { a, _, _ in
            ("/v1/payment_methods", "type=us_bank_account&us_bank_account[link_account_session]=\(a.linkSession)&billing_details[name]=M")
        },
        .victim("POST /v1/payment_methods") { a, _, _ in
            ("/v1/payment_methods", "type=us_bank_account&us_bank_account[financial_connections_account]=\(a.linkedAccount)&billing_details[name]=M")
        },

        // Sheet settings.
        .ownAccount("POST /v1/customer_sheet_settings") { _ in ("/v1/customer_sheet_settings", "name=mallory") },
        .ownAccount("GET /v1/customer_sheet_settings") { _ in ("/v1/customer_sheet_settings", nil) },
        .victim("GET /v1/customer_sheet_settings") { a, _, _ in ("/v1/customer_sheet_settings?starting_after=\(a.sheetSettings)", nil) },
        .ownAccount("GET /v1/customer_sheet_settings/current") { _ in ("/v1/customer_sheet_settings/current", nil) },
        .victim("GET /v1/customer_sheet_settings/{id}") { a, _, _ in ("/v1/customer_sheet_settings/\(a.sheetSettings)", nil) },
        .victim("GET /v1/customer_sheet_settings/{id}") { a, _, _ in ("/v1/customer_sheet_settings/\(a.defaultSheetSettings)", nil) },
        .victim("POST /v1/customer_sheet_settings/{id}") { a, _, _ in ("/v1/customer_sheet_settings/\(a.sheetSettings)", "name=mallory") },
        .victim("POST /v1/customer_sheet_settings/{id}") { a, _, _ in
            ("/v1/customer_sheet_settings/\(a.defaultSheetSettings)", "duplicate_cards=reuse")
        },
        .victim("DELETE /v1/customer_sheet_settings/{id}") { a, _, _ in ("/v1/customer_sheet_settings/\(a.sheetSettings)", nil) },

        // The elements calls.
        .ownAccount("GET /v1/elements/sessions") { b in
            ("/v1/elements/sessions?type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(b.sessionSecret)", nil)
        },
        .victim("GET /v1/elements/sessions") { a, _, _ in
            ("/v1/elements/sessions?type=deferred_intent&deferred_intent[mode]=setup&customer_session_client_secret=\(a.customerSessionSecret)", nil)
        },
        .victim("GET /v1/elements/sessions") { a, _, _ in ("/v1/elements/sessions?type=setup_intent&client_secret=\(a.setupIntentSecret)", nil) },
        .victim("POST /v1/elements/payment_methods/{id}/detach") { a, b, caller in
            (
                "/v1/elements/payment_methods/\(a.attachedCard)/detach",
                caller == .sessionKey ? "customer_session_client_secret=\(b.sessionSecret)" : ""
            )
        },
        // B's session key with A's session client secret, on B's own card.
        .victim("POST /v1/elements/payment_methods/{id}/detach", callers: [.sessionKey]) { a, b, _ in
            ("/v1/elements/payment_methods/\(b.attachedCard)/detach", "customer_session_client_secret=\(a.customerSessionSecret)")
        },
        .victim("POST /v1/elements/customers/{id}/set_default_payment_method") { a, _, _ in
            ("/v1/elements/customers/\(a.customer)/set_default_payment_method", "payment_method=\(a.attachedCard)")
        },
        .victim("POST /v1/elements/customers/{id}/set_default_payment_method") { a, b, _ in
            ("/v1/elements/customers/\(b.customer)/set_default_payment_method", "payment_method=\(a.attachedCard)")
        },

        // Events and webhook endpoints.
        .ownAccount("GET /v1/events") { _ in ("/v1/events", nil) },
        .victim("GET /v1/events") { a, _, _ in ("/v1/events?starting_after=\(a.event)", nil) },
        .victim("GET /v1/events/{id}") { a, _, _ in ("/v1/events/\(a.event)", nil) },
        .ownAccount("POST /v1/webhook_endpoints") { _ in ("/v1/webhook_endpoints", "url=http%3A%2F%2F127.0.0.1%3A9%2Fmallory&enabled_events[]=*") },
        .ownAccount("GET /v1/webhook_endpoints") { _ in ("/v1/webhook_endpoints", nil) },
        .victim("GET /v1/webhook_endpoints") { a, _, _ in ("/v1/webhook_endpoints?starting_after=\(a.webhookEndpoint)", nil) },
        .victim("GET /v1/webhook_endpoints/{id}") { a, _, _ in ("/v1/webhook_endpoints/\(a.webhookEndpoint)", nil) },
        .victim("POST /v1/webhook_endpoints/{id}") { a, _, _ in ("/v1/webhook_endpoints/\(a.webhookEndpoint)", "disabled=true") },
        .victim("DELETE /v1/webhook_endpoints/{id}") { a, _, _ in ("/v1/webhook_endpoints/\(a.webhookEndpoint)", nil) },
        .victim("GET /v1/webhook_endpoints/{id}/deliveries") { a, _, _ in ("/v1/webhook_endpoints/\(a.webhookEndpoint)/deliveries", nil) },

        // The customer portal's configurations and sessions.
        .ownAccount("POST /v1/billing_portal/configurations") { _ in
            ("/v1/billing_portal/configurations", "features[payment_method_update][enabled]=true")
        },
        .ownAccount("GET /v1/billing_portal/configurations") { _ in ("/v1/billing_portal/configurations", nil) },
        .victim("GET /v1/billing_portal/configurations") { a, _, _ in
            ("/v1/billing_portal/configurations?starting_after=\(a.portalConfiguration)", nil)
        },
        .victim("GET /v1/billing_portal/configurations/{id}") { a, _, _ in ("/v1/billing_portal/configurations/\(a.portalConfiguration)", nil) },
        .victim("POST /v1/billing_portal/configurations/{id}") { a, _, _ in
            ("/v1/billing_portal/configurations/\(a.portalConfiguration)", "name=mallory")
        },
        .victim("POST /v1/billing_portal/sessions") { a, _, _ in ("/v1/billing_portal/sessions", "customer=\(a.customer)") },
        .victim("POST /v1/billing_portal/sessions") { a, b, _ in
            ("/v1/billing_portal/sessions", "customer=\(b.customer)&configuration=\(a.portalConfiguration)")
        },
        // Its pages: B's own (so their statements run), A's session with B's token, B's session with A's, B's session naming A's objects.
        .ownAccount("GET /p/session/{id}/{token}") { b in ("/p/session/\(b.portalSession)/\(b.portalToken)", nil) },
        .victim("GET /p/session/{id}/{token}") { a, b, _ in ("/p/session/\(a.portalSession)/\(b.portalToken)", nil) },
        .victim("GET /p/session/{id}/{token}") { a, b, _ in ("/p/session/\(b.portalSession)/\(a.portalToken)", nil) },
        .victim("GET /p/session/{id}/{token}/add") { a, b, _ in ("/p/session/\(a.portalSession)/\(b.portalToken)/add", nil) },
        .victim("GET /p/session/{id}/{token}/done") { a, b, _ in ("/p/session/\(b.portalSession)/\(a.portalToken)/done", nil) },
        .victim("POST /p/session/{id}/{token}/payment_methods") { a, b, _ in
            (
                "/p/session/\(a.portalSession)/\(b.portalToken)/payment_methods",
                "csrf_token=\(b.portalFormToken)&type=card&card_number=4242424242424242&card_expiry=12%2F34&card_cvc=123"
            )
        },
        .victim("POST /p/session/{id}/{token}/payment_methods/{payment_method}/default") { a, b, _ in
            ("/p/session/\(b.portalSession)/\(b.portalToken)/payment_methods/\(a.attachedCard)/default", "csrf_token=\(b.portalFormToken)")
        },
        .victim("POST /p/session/{id}/{token}/payment_methods/{payment_method}/remove") { a, b, _ in
            ("/p/session/\(b.portalSession)/\(b.portalToken)/payment_methods/\(a.attachedCard)/remove", "csrf_token=\(b.portalFormToken)")
        },
        .victim("GET /p/session/{id}/return/{setup_intent}") { a, b, _ in ("/p/session/\(b.portalSession)/return/\(a.setupIntent)", nil) },
    ]

    @Test func everyRouteAndCredentialOfOneAccountIsBlindToAnother() async throws {
        try await LiveServer.with { server in
            // A route without a probe fails here, so a new route cannot be forgotten.
            let served = Set(server.routes.map { "\($0.method) \($0.path)" })
            let probed = Set(Self.probes.map(\.route))
            for route in served.subtracting(probed).sorted() {
                Issue.record("No probe for \(route): add one to TenantIsolationMatrixTests.probes, naming account A's objects if it takes any")
            }
            for route in probed.subtracting(served).sorted() {
                Issue.record("A probe for \(route), which the server does not serve")
            }
            let attacked = Set(Self.probes.filter { $0.kind == .namesVictim }.map(\.route))
            for route in served.filter({ $0.contains("{") }).subtracting(attacked).sorted() {
                Issue.record("\(route) takes an object in its path but no probe names one of account A's")
            }

            let victim = try await Self.makeVictim(server)
            let attacker = try await Self.makeAttacker(server)
            let before = try await Self.snapshot(server, account: victim.account.id)
            for table in [
                "customers", "payment_methods", "setup_intents", "ephemeral_keys", "customer_sessions",
                "customer_sheet_settings", "events", "webhook_endpoints", "financial_connections_sessions",
            ] {
                #expect(before[table]?.isEmpty == false, "the snapshot holds A's \(table)")
            }

            let findings = try await Self.sendEveryProbe(server, victim: victim, attacker: attacker)
            #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")

            let after = try await Self.snapshot(server, account: victim.account.id)
            for table in before.keys.sorted() where before[table] != after[table] {
                Issue.record("Account A's \(table) changed:\nbefore:\n\(before[table] ?? "")\nafter:\n\(after[table] ?? "")")
            }
        }
    }

    /// Sends every probe as every caller it names, each naming account A's objects, and their
    /// ghosts where it takes any; returns what leaked or differed.
    static func sendEveryProbe(
        _ server: LiveServer, victim: (account: TestAccount, targets: Targets), attacker: Attacker
    ) async throws -> [String] {
        let ghosts = victim.targets.ghosts(DerivedSecrets(masterKey: server.masterKey))
        let substitutions = zip(victim.targets.all, ghosts.all).sorted { $0.0.count > $1.0.count }
        let victimValues = victim.targets.all + [victim.account.id, victim.account.secretKey, victim.account.publishableKey]
        var findings: [String] = []
        for probe in Self.probes {
            for caller in probe.callers {
                let client = attacker.client(caller)
                let (path, body) = probe.request(victim.targets, attacker, caller)
                let answer = try await client.send(probe.method, path, headers: Self.headers, body: body)
                var problems = Self.leaks(in: answer, request: path + (body ?? ""), victimValues: victimValues)
                if probe.kind == .namesVictim {
                    let (ghostPath, ghostBody) = probe.request(ghosts, attacker, caller)
                    let ghostAnswer = try await client.send(probe.method, ghostPath, headers: Self.headers, body: ghostBody)
                    problems += Self.problems(with: answer, comparedTo: ghostAnswer, substitutions: substitutions)
                } else if answer.status >= 500 || answer.status == 401 {
                    problems.append("answered \(Self.describe(answer))")
                }
                findings += problems.map { "\(probe.method) \(path) \(body ?? "") × \(caller): \($0)" }
            }
        }
        return findings
    }

    // MARK: - The two accounts

    static let headers = ["Stripe-Version": "2020-08-27"]

    /// Account A with one of everything, each carrying the word "victim" where it has a free field.
    static func makeVictim(_ server: LiveServer) async throws -> (account: TestAccount, targets: Targets) {
        let account = try await server.makeAccount(name: "Victim")
        let api = account.secret
        let customer = try await id(of: api.post("/v1/customers", "name=Victim&email=victim%40example.com&metadata[marker]=victim"))
        let attachedCard = try await id(of: api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)"))
        _ = try await api.post("/v1/customers/\(customer)", "invoice_settings[default_payment_method]=\(attachedCard)")
        let unattachedCard = try await id(of: api.post("/v1/payment_methods", cardForm("5555555555554444") + "&billing_details[name]=victim"))
        let intent = try await api.post("/v1/setup_intents", "customer=\(customer)&metadata[marker]=victim")
        let pending = try await pendingAuthentication(api, intent: try id(of: intent))
        let session = try await account.customerSession(for: customer)
        let ephemeralKey = try await account.ephemeralKey(for: customer).id
        let sheetSettings = try await id(of: api.post("/v1/customer_sheet_settings", "name=victim"))
        let defaultSheetSettings = try await id(of: api.get("/v1/customer_sheet_settings/default"))
        let event = try #require(try await api.get("/v1/events").json["data"]?.arrayValue?.first?["id"]?.stringValue)
        let link = try await linkedSession(server, account, customer: customer)
        let portalConfiguration = try await id(
            of: api.post("/v1/billing_portal/configurations", "features[payment_method_update][enabled]=true&name=victim")
        )
        let portal = try await api.post("/v1/billing_portal/sessions", "customer=\(customer)&configuration=\(portalConfiguration)")
        let portalToken = try #require(portal.json["url"]?.stringValue?.split(separator: "/").last.map(String.init))
        let testClock = try await id(of: api.post("/v1/test_helpers/test_clocks", "frozen_time=1700000000&name=victim"))
        let clockedCustomer = try await id(of: api.post("/v1/customers", "name=victim&test_clock=\(testClock)"))
        // Last, so that no event of A is queued for it and the delivery tables stay still.
        let webhookEndpoint = try await id(
            of: api.post("/v1/webhook_endpoints", "url=http%3A%2F%2F127.0.0.1%3A9%2Fvictim&enabled_events[]=*&description=victim")
        )
        let targets = Targets(
            customer: customer, attachedCard: attachedCard, unattachedCard: unattachedCard, setupIntent: try id(of: intent),
            setupIntentSecret: try #require(intent.json["client_secret"]?.stringValue), authenticationToken: pending,
            customerSession: session.id, customerSessionSecret: session.clientSecret, ephemeralKey: ephemeralKey,
            sheetSettings: sheetSettings, defaultSheetSettings: defaultSheetSettings, event: event, webhookEndpoint: webhookEndpoint,
            linkSession: link.session, linkSessionSecret: link.secret, linkedAccount: link.account, testBankToken: link.token,
            portalConfiguration: portalConfiguration, portalSession: try id(of: portal), portalToken: portalToken,
            testClock: testClock, clockedCustomer: clockedCustomer
        )
        return (account, targets)
    }

    /// Account B with its own customer, cards, an intent awaiting 3D Secure, and every credential.
    static func makeAttacker(_ server: LiveServer) async throws -> Attacker {
        let account = try await server.makeAccount(name: "Attacker")
        let api = account.secret
        let customer = try await id(of: api.post("/v1/customers", "name=Mallory"))
        let intent = try await api.post("/v1/setup_intents", "customer=\(customer)")
        let session = try await account.customerSession(
            for: customer, features: "&components[customer_sheet][features][payment_method_remove]=enabled"
        )
        let link = try await account.publishable.post(
            "/v1/connections/link_account_sessions_for_deferred_payment", "unique_id=elements_session_mallory"
        )
        let linkSession = try id(of: link)
        let portal = try await api.post("/v1/billing_portal/sessions", "customer=\(customer)")
        let portalSession = try id(of: portal)
        let secrets = DerivedSecrets(masterKey: server.masterKey)
        return Attacker(
            account: account, customer: customer,
            attachedCard: try await id(of: api.post("/v1/payment_methods/pm_card_visa/attach", "customer=\(customer)")),
            unattachedCard: try await id(of: api.post("/v1/payment_methods", cardForm("4242424242424242"))),
            setupIntent: try id(of: intent), setupIntentSecret: try #require(intent.json["client_secret"]?.stringValue),
            authenticationToken: try await pendingAuthentication(api, intent: try id(of: intent)),
            sessionSecret: session.clientSecret, ephemeralKey: try await account.ephemeralKey(for: customer).secret,
            sessionKey: session.apiKey, linkSession: linkSession,
            testBankToken: secrets.testBankPageToken(linkSession), portalSession: portalSession,
            portalToken: secrets.portalSessionToken(portalSession), portalFormToken: secrets.portalFormToken(portalSession)
        )
    }

    /// A bank setup intent of `customer` whose Financial Connections session linked the test
    /// bank's checking account, through the page as a browser does.
    static func linkedSession(
        _ server: LiveServer, _ account: TestAccount, customer: String
    ) async throws -> (session: String, secret: String, account: String, token: String) {
        let intent = try await account.secret.post("/v1/setup_intents", "customer=\(customer)&payment_method_types[0]=us_bank_account")
        let created = try await account.publishable.post(
            "/v1/setup_intents/\(try id(of: intent))/link_account_sessions",
            "client_secret=\(try #require(intent.json["client_secret"]?.stringValue))&payment_method_data[type]=us_bank_account"
        )
        let session = try id(of: created)
        let token = DerivedSecrets(masterKey: server.masterKey).testBankPageToken(session)
        let form = "account=checking&action=link"
        let connection = try await RawHTTPConnection.open(port: server.port)
        try await connection.write(
            "POST /v1/financial_connections/test_bank/\(token)?session=\(session) HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
        )
        #expect(try await connection.response().body.contains("Account linked"))
        let receipt = try await account.secret.get("/v1/financial_connections/sessions/\(session)")
        return (
            session, try #require(created.json["client_secret"]?.stringValue),
            try #require(receipt.json["payment_account"]?["id"]?.stringValue), token
        )
    }

    /// Confirms `intent` with a card that asks for 3D Secure; returns the token of its page.
    static func pendingAuthentication(_ api: APIClient, intent: String) async throws -> String {
        let confirmed = try await api.post("/v1/setup_intents/\(intent)/confirm", "payment_method=pm_card_authenticationRequiredOnSetup")
        let page = try #require(confirmed.json["next_action"]?["redirect_to_url"]?["url"]?.stringValue, "\(confirmed.json)")
        return String(page.split(separator: "/").last ?? "")
    }

    static func id(of call: HTTPCall) throws -> String {
        try #require(call.json["id"]?.stringValue, "\(call.status) \(call.json)")
    }

    // MARK: - Judging the answers

    /// A's ids, keys or free text in an answer, other than what the request itself carried.
    static func leaks(in answer: HTTPCall, request: String, victimValues: [String]) -> [String] {
        let text = String(decoding: answer.body, as: UTF8.self)
        let shown = victimValues.filter { !request.contains($0) && text.contains($0) } + (text.contains("victim") ? ["the word victim"] : [])
        return shown.map { "reveals \($0)" }
    }

    /// B naming A's objects must get what it gets for objects that do not exist: a refusal
    /// (or an empty list), the same status and the same body once the ids are swapped.
    static func problems(with answer: HTTPCall, comparedTo ghostAnswer: HTTPCall, substitutions: [(String, String)]) -> [String] {
        var problems: [String] = []
        let isEmptyList =
            (answer.json["object"] == "list" || answer.json["object"] == "search_result") && answer.json["data"] == []
        if answer.status >= 500 || answer.status == 401 || ((200..<300).contains(answer.status) && !isEmptyList) {
            problems.append("answered \(describe(answer))")
        }
        if answer.status == 403, answer.error?["code"] != "secret_key_required" {
            problems.append("403 that is not about the kind of key: \(describe(answer))")
        }
        // Other refusals say the object is missing (a portal page: its "link has expired" page),
        // or refuse the attacker's own client secret.
        let credentialParameters: Set<String> = ["client_secret", "customer_session_client_secret"]
        let isClosedPage = answer.status == 404 && answer.header("Content-Type")?.hasPrefix("text/html") == true
        if (400..<500).contains(answer.status), answer.status != 403, !isClosedPage, answer.error?["code"] != "resource_missing",
            !credentialParameters.contains(answer.error?["param"]?.stringValue ?? "")
        {
            problems.append("refused otherwise than resource_missing: \(describe(answer))")
        }
        let text = substitutions.reduce(String(decoding: answer.body, as: UTF8.self)) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        let ghostText = String(decoding: ghostAnswer.body, as: UTF8.self)
        if answer.status != ghostAnswer.status || text != ghostText {
            problems.append("tells A's object from a missing one: \(answer.status) \(text) vs \(ghostAnswer.status) \(ghostText)")
        }
        return problems
    }

    static func describe(_ call: HTTPCall) -> String {
        "\(call.status) \(call.error?["code"]?.stringValue ?? "") \(call.error?["message"]?.stringValue ?? "")"
    }

    /// Every row of the account in every table that has an `account_id`, and the account itself,
    /// as text per table.
    static func snapshot(_ server: LiveServer, account: String) async throws -> [String: String] {
        let tables = try await server.pool.query(
            """
            SELECT table_name::text AS name FROM information_schema.columns
            WHERE column_name = 'account_id' AND table_schema = current_schema()
            """
        ).map { try $0["name", as: String.self] }
        var rows: [String: String] = [:]
        for table in tables + ["accounts"] {
            let column = table == "accounts" ? "id" : "account_id"
            rows[table] = try await server.pool.query(
                """
                SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') AS rows
                FROM \(unsafeSQL: table) t WHERE \(unsafeSQL: column) = \(account)
                """
            )[0]["rows", as: String.self]
        }
        return rows
    }
}
