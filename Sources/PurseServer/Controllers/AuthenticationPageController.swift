import Foundation
import Hummingbird
import NIOCore
import PurseCore
import PurseModels

/// The 3D Secure page a setup intent's `next_action.redirect_to_url.url` points at. Public: its
/// URL carries its own unguessable token. Showing it changes nothing; its buttons POST the
/// customer's verdict, which completes or fails the intent, then send the customer back to
/// `return_url` when there is one.
struct AuthenticationPageController {
    let setupIntents: SetupIntentService
    /// Purse's public URL: a form's POST must come from its pages.
    let publicURL: PublicURL

    static let path = "/v1/setup_intents/{id}/authenticate/{token}"

    func register(on api: APIRouter) {
        api.raw(.get, Self.path, show)
        api.raw(.post, Self.path, decide)
    }

    @Sendable func show(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let page = try await setupIntents.authenticationPage(id, token: context.parameters.get("token") ?? "")
        guard page.intent.status == .requiresAction else { return Self.resultPage(page.intent).response() }
        let card = page.method?.card.map { "\($0.brand.capitalized) •••• \($0.last4)" } ?? "your payment method"
        let returnURL = page.intent.nextAction?.redirectToURL?.returnURL
        var html = HTMLPage(
            title: "Confirm it is you",
            body: """
                <h1>Confirm it is you</h1>
                <p>Your bank asks you to confirm saving \(HTMLPage.escaped(card)) (test mode: choose an outcome).</p>
                <form method="post"><input type="hidden" name="action" value="complete">
                  <button type="submit" class="primary">Complete authentication</button></form>
                <form method="post"><input type="hidden" name="action" value="fail">
                  <button type="submit">Fail authentication</button></form>
                """
        )
        html.formTarget = returnURL.flatMap { try? ReturnURL.checked($0) }
        return html.response()
    }

    @Sendable func decide(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        guard HTMLPage.isFromOwnSite(request, publicURL: publicURL.base) else { return HTMLPage.fromAnotherSite() }
        guard let form = try await HTMLPage.formFields(of: request) else { return HTMLPage.tooLarge(again: "choose an outcome") }
        guard case .string(let action) = form["action"] ?? .string(""), action == "complete" || action == "fail" else {
            throw PurseError.invalidParameter("action", "action must be complete or fail.")
        }
        let outcome: (intent: SetupIntent, returnURL: String?)
        do {
            outcome = try await setupIntents.completeAuthentication(
                context.parameters.get("id") ?? "", token: context.parameters.get("token") ?? "", succeeded: action == "complete",
                request: RequestInfo(id: context.requestID, idempotencyKey: nil, apiVersion: RequestInfo.defaultAPIVersion)
            )
        } catch let error as PurseError where error.category != .notFound {
            // A customer deleted meanwhile, say: tell the person at the browser, not an API client.
            return HTMLPage(
                title: "Authentication unavailable",
                body: "<h1>This authentication can no longer be completed</h1><p>\(HTMLPage.escaped(error.message))</p>"
            ).response(status: .conflict)
        }
        // Checked again here: an intent confirmed before the return_url rules existed may hold any URL.
        if let returnURL = outcome.returnURL.flatMap({ try? ReturnURL.checked($0) }) {
            return Response(status: .seeOther, headers: [.location: returnURL, .contentLength: "0", .cacheControl: "no-store"])
        }
        return Self.resultPage(outcome.intent).response()
    }

    private static func resultPage(_ intent: SetupIntent) -> HTMLPage {
        intent.status == .succeeded
            ? HTMLPage(
                title: "Authentication complete",
                body: "<h1>Authentication complete</h1><p>You can close this window and return to the app.</p>"
            )
            : HTMLPage(
                title: "Authentication failed",
                body: "<h1>Authentication failed</h1><p>You can close this window and try another payment method.</p>"
            )
    }
}
