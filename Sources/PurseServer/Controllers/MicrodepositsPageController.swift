import Foundation
import Hummingbird
import NIOCore
import PurseCore
import PurseModels

/// The page a setup intent's `next_action.verify_with_microdeposits.hosted_verification_url`
/// points at: the customer types the code from the deposit's statement descriptor, and the
/// verification runs as `POST /v1/setup_intents/{id}/verify_microdeposits` does. Public: its URL
/// carries its own unguessable token.
struct MicrodepositsPageController {
    let setupIntents: SetupIntentService
    /// Purse's public URL: a form's POST must come from its pages.
    let publicURL: PublicURL

    static let path = "/v1/setup_intents/{id}/verify_microdeposits/{token}"

    func register(on api: APIRouter) {
        api.raw(.get, Self.path, show)
        api.raw(.post, Self.path, verify)
    }

    @Sendable func show(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        let intent = try await setupIntents.microdepositsPage(context.parameters.get("id") ?? "", token: context.parameters.get("token") ?? "")
        guard intent.status == .requiresAction else { return Self.resultPage(intent).response() }
        return Self.form(intent).response()
    }

    @Sendable func verify(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        guard HTMLPage.isFromOwnSite(request, publicURL: publicURL.base) else { return HTMLPage.fromAnotherSite() }
        guard let form = try await HTMLPage.formFields(of: request) else { return HTMLPage.tooLarge(again: "type the code") }
        guard case .string(let code) = form["descriptor_code"] ?? .string("") else {
            throw PurseError.invalidParameter("descriptor_code", "descriptor_code must be text.")
        }
        let (id, token) = (context.parameters.get("id") ?? "", context.parameters.get("token") ?? "")
        let info = RequestInfo(id: context.requestID, idempotencyKey: nil, apiVersion: RequestInfo.defaultAPIVersion)
        do {
            let intent = try await setupIntents.verifyMicrodeposits(
                id, pageToken: token, SetupIntentVerifyMicrodepositsParameters(descriptorCode: code), request: info
            )
            return Self.resultPage(intent).response()
        } catch let error as PurseError where error.category != .notFound {
            // A wrong code, say: the form again with why, while attempts are left.
            let intent = try await setupIntents.microdepositsPage(id, token: token)
            guard intent.status == .requiresAction else { return Self.resultPage(intent, reason: error.message).response(status: .badRequest) }
            return Self.form(intent, error: error.message).response(status: .badRequest)
        }
    }

    private static func form(_ intent: SetupIntent, error: String? = nil) -> HTMLPage {
        let alert = error.map { "<p class=\"error\" role=\"alert\">\(HTMLPage.escaped($0))</p>" } ?? ""
        return HTMLPage(
            title: "Verify your bank account",
            body: """
                <h1>Verify your bank account</h1>
                <p>A deposit of $0.01 was sent to your account. Its statement descriptor reads SMxxxx: type that \
                code here (test mode: SM11AA verifies).</p>
                \(alert)
                <form method="post">
                <label for="descriptor_code">Code from the statement descriptor</label>
                <input id="descriptor_code" name="descriptor_code" autocomplete="off" autocapitalize="characters" maxlength="6" \
                required aria-describedby="code-help">
                <p id="code-help"><small>Six characters, starting with SM.</small></p>
                <button type="submit" class="primary">Verify</button>
                </form>
                """
        )
    }

    private static func resultPage(_ intent: SetupIntent, reason: String? = nil) -> HTMLPage {
        if intent.status == .succeeded {
            return HTMLPage(
                title: "Bank account verified",
                body: "<h1>Bank account verified</h1><p>You can close this window.</p>"
            )
        }
        let why = reason.map { "<p>\(HTMLPage.escaped($0))</p>" } ?? ""
        return HTMLPage(
            title: "Verification over",
            body: "<h1>This verification is over</h1>\(why)<p>The bank account was not verified. You can close this window.</p>"
        )
    }
}
