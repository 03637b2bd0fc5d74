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

    static let path = "/v1/setup_intents/{id}/authenticate/{token}"

    func register(on api: APIRouter) {
        api.raw(.get, Self.path, show)
        api.raw(.post, Self.path, decide)
    }

    @Sendable func show(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let page = try await setupIntents.authenticationPage(id, token: context.parameters.get("token") ?? "")
        guard page.intent.status == "requires_action" else { return Self.html(Self.resultPage(page.intent)) }
        let card = page.method?.card.map { "\($0.brand.capitalized) •••• \($0.last4)" } ?? "your payment method"
        return Self.html(
            """
            <h1>Confirm it is you</h1>
            <p>Your bank asks you to confirm saving \(Self.escaped(card)) (test mode: choose an outcome).</p>
            <form method="post"><input type="hidden" name="action" value="complete">
              <button type="submit">Complete authentication</button></form>
            <form method="post"><input type="hidden" name="action" value="fail">
              <button type="submit">Fail authentication</button></form>
            """
        )
    }

    @Sendable func decide(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        let form = try FormParser.parse(body.readableBytesView)
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
            return Self.html("<h1>This authentication can no longer be completed</h1><p>\(Self.escaped(error.message))</p>", status: .conflict)
        }
        if let returnURL = outcome.returnURL {
            return Response(status: .seeOther, headers: [.location: returnURL, .contentLength: "0"])
        }
        return Self.html(Self.resultPage(outcome.intent))
    }

    private static func resultPage(_ intent: SetupIntent) -> String {
        intent.status == "succeeded"
            ? "<h1>Authentication complete</h1><p>You can close this window and return to the app.</p>"
            : "<h1>Authentication failed</h1><p>You can close this window and try another payment method.</p>"
    }

    private static func html(_ content: String, status: HTTPResponse.Status = .ok) -> Response {
        let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1"><title>Purse: authentication</title></head>
            <body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; line-height: 1.5">
            \(content)</body></html>
            """
        let bytes = Array(page.utf8)
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .contentLength: String(bytes.count), .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
