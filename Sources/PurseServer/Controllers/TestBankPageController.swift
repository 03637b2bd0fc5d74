import Hummingbird
import NIOCore
import PurseCore

/// Purse's test bank: the page a Financial Connections session's `hosted_auth_url` opens in the
/// app's browser. Public: its URL carries its own unguessable token. The customer picks a test
/// account or types routing and account numbers; linking completes the session, cancelling
/// cancels it, and either ends on a link the customer taps back to the app (`success_url`,
/// `cancel_url`): Android's Custom Tabs open an app's scheme only from a gesture, not from a
/// redirect. No script: a form, and a link.
struct TestBankPageController {
    let financialConnections: FinancialConnectionsService
    /// Purse's public URL: a form's POST must come from its pages.
    let publicURL: PublicURL

    static let path = "/v1/financial_connections/test_bank/{token}"

    func register(on api: APIRouter) {
        api.raw(.get, Self.path, show)
        api.raw(.post, Self.path, decide)
    }

    @Sendable func show(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        let (id, token) = Self.address(request, context)
        let visit = try await financialConnections.testBankPage(id, token: token)
        guard visit.session.status == .pending else { return Self.resultPage(visit).response() }
        return Self.form(visit).response()
    }

    @Sendable func decide(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        let (id, token) = Self.address(request, context)
        guard HTMLPage.isFromOwnSite(request, publicURL: publicURL.base) else { return HTMLPage.fromAnotherSite() }
        guard let form = try await HTMLPage.formFields(of: request) else { return HTMLPage.tooLarge(again: "choose an account") }
        let field = { (name: String) -> String? in
            guard case .string(let value) = form[name] else { return nil }
            return value.isEmpty ? nil : value
        }
        let visit: TestBankVisit
        switch field("action") {
        case "cancel":
            visit = try await financialConnections.cancel(session: id, token: token)
            return Self.resultPage(visit).response()
        case "link":
            let selection: TestBankSelection
            switch field("account") {
            case "manual":
                selection = .entered(
                    routingNumber: field("routing_number") ?? "", accountNumber: field("account_number") ?? "",
                    subcategory: field("account_type") == "savings" ? "savings" : "checking"
                )
            case let name?:
                guard let account = TestBankAccount(rawValue: name) else {
                    throw PurseError.invalidParameter("account", "Choose one of the test accounts, or enter an account.")
                }
                selection = .test(account)
            case nil:
                throw PurseError.missingParameter("account")
            }
            do {
                visit = try await financialConnections.link(selection, session: id, token: token)
            } catch let error as PurseError where error.category == .invalidRequest {
                // Typed numbers that do not check out: the same form again, with why.
                let page = try await financialConnections.testBankPage(id, token: token)
                return Self.form(page, error: error.message, entered: selection).response(status: .badRequest)
            }
            return Self.resultPage(visit).response()
        default:
            throw PurseError.invalidParameter("action", "action must be link or cancel.")
        }
    }

    /// The session's id (the URL's `session` query parameter) and the page's token.
    private static func address(_ request: Request, _ context: PurseRequestContext) -> (id: String, token: String) {
        (request.uri.queryParameters["session"].map(String.init) ?? "", context.parameters.get("token") ?? "")
    }

    private static func form(_ visit: TestBankVisit, error: String? = nil, entered: TestBankSelection? = nil) -> HTMLPage {
        // What was typed comes back, but for the account number, which is never sent to a browser.
        var typed = (routing: "", savings: false)
        if case .entered(let routing, _, let subcategory)? = entered { typed = (routing, subcategory == "savings") }
        let choices = visit.offered.enumerated().map { index, account in
            """
            <div class="choice"><input type="radio" name="account" id="account-\(account.rawValue)" value="\(account.rawValue)"\
            \(index == 0 && entered == nil ? " checked" : "")><label for="account-\(account.rawValue)">\(HTMLPage.escaped(account.label))\
            <small>\(HTMLPage.escaped(account.outcome))</small></label></div>
            """
        }.joined()
        let accountTypes = visit.subcategories.map { type in
            "<option value=\"\(type)\"\(typed.savings == (type == "savings") ? " selected" : "")>\(type.capitalized)</option>"
        }.joined()
        let manualChecked = entered != nil ? " checked" : ""
        let alert = error.map { "<p class=\"error\" role=\"alert\">\(HTMLPage.escaped($0))</p>" } ?? ""
        return HTMLPage(
            title: "Link a bank account",
            body: """
                <h1>Link a bank account</h1>
                <p>Purse test bank: no real bank is contacted. Choose an account to link to this app.</p>
                \(alert)
                <form method="post">
                <fieldset><legend>Test accounts at STRIPE TEST BANK (routing 110000000)</legend>\(choices)
                <div class="choice"><input type="radio" name="account" id="account-manual" value="manual"\(manualChecked)>\
                <label for="account-manual">Enter account details</label></div></fieldset>
                <fieldset><legend>Account details (when entered)</legend>
                <label for="routing_number">Routing number</label>
                <input id="routing_number" name="routing_number" inputmode="numeric" autocomplete="off" maxlength="9" value="\(HTMLPage.escaped(typed.routing))">
                <label for="account_number">Account number</label>
                <input id="account_number" name="account_number" inputmode="numeric" autocomplete="off" maxlength="17">
                <label for="account_type">Account type</label>
                <select id="account_type" name="account_type">\(accountTypes)</select></fieldset>
                <button type="submit" id="link" name="action" value="link" class="primary">Link account</button>
                <button type="submit" id="cancel" name="action" value="cancel">Cancel</button>
                </form>
                """
        )
    }

    /// Where a decided session stands, and the link back to the app: the same page whether this
    /// visit decided it or an earlier one did, so a reload changes nothing.
    private static func resultPage(_ visit: TestBankVisit) -> HTMLPage {
        let back = { (url: String) in
            "<p><a id=\"return\" class=\"button primary\" href=\"\(HTMLPage.escaped(url))\">Return to the app</a></p>"
        }
        switch visit.session.status {
        case .succeeded:
            let last4 = visit.session.linkedAccount?.last4 ?? ""
            return HTMLPage(
                title: "Account linked",
                body: "<h1>Account linked</h1><p>The account ending in \(HTMLPage.escaped(last4)) is linked.</p>" + back(visit.successURL)
            )
        case .cancelled:
            return HTMLPage(title: "Linking cancelled", body: "<h1>Linking cancelled</h1><p>No account was linked.</p>" + back(visit.cancelURL))
        case .pending:
            return HTMLPage(title: "Link a bank account", body: "<h1>This link is not finished</h1><p>Return to the app.</p>")
        }
    }
}
