import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PurseCore
import PurseModels
import PurseParameters

/// The customer portal's pages, under a session's URL (`/p/session/{id}/{token}`). Public: the
/// URL is the customer's credential, for its one customer, and every page checks it again. Each
/// form carries the session's form token, and a POST from another site is refused, so a page of
/// another origin cannot act for the customer. After a POST the customer is redirected (303), so
/// a reload repeats nothing.
struct PortalPageController {
    let pages: BillingPortalPages
    let publicURL: PublicURL
    /// Where a request comes from, behind trusted proxies too: a SEPA mandate records it.
    let clientAddress: ClientAddress

    static let root = "/p/session/{id}/{token}"

    func register(on api: APIRouter) {
        api.raw(.get, Self.root, home)
        api.raw(.get, Self.root + "/add", addForm)
        api.raw(.post, Self.root + "/payment_methods", add)
        api.raw(.get, "/p/session/{id}/return/{setup_intent}", returnFromAuthentication)
        api.raw(.post, Self.root + "/payment_methods/{payment_method}/default", setDefault)
        api.raw(.post, Self.root + "/payment_methods/{payment_method}/remove", remove)
        api.raw(.get, Self.root + "/done", done)
    }

    // MARK: - Pages

    @Sendable func home(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        try await withVisit(request, context) { visit, page in
            if visit.isFlowPending { return page.add(newForm(visit, request: request), error: Self.failure(request, page.text)).response() }
            let notice = request.uri.queryParameters.get("done").flatMap(PortalPage.Notice.init(rawValue:))
            return page.methods(notice: notice).response()
        }
    }

    @Sendable func addForm(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        try await withVisit(request, context) { visit, page in
            guard visit.canUpdate, !visit.addableTypes.isEmpty else { return Self.redirect(to: visit.url) }
            return page.add(newForm(visit, request: request), error: Self.failure(request, page.text)).response()
        }
    }

    @Sendable func add(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        try await withForm(request, context) { visit, page, fields in
            let form: PortalPaymentMethodForm
            do {
                form = try PortalPaymentMethodForm(fields, offered: visit.addableTypes)
            } catch {
                return page.add(newForm(visit, request: request), error: page.text.tryAgain).response(status: .badRequest)
            }
            let info = Self.requestInfo(context)
            guard let address = clientAddress.of(peer: context.peerAddress, forwardedFor: request.headers[.xForwardedFor]) else {
                return page.add(form, error: page.text.tryAgain).response(status: .badRequest)
            }
            do {
                let confirmation = try form.confirmation(ipAddress: address, userAgent: request.headers[.userAgent] ?? "unknown")
                switch try await pages.add(form.type, confirmation, makeDefault: form.makeDefault, in: visit, request: info) {
                case .saved:
                    return Self.redirect(to: completionTarget(visit, notice: .added))
                case .needsAuthentication(let url, let intent, let returnToken):
                    var response = Self.redirect(to: url)
                    response.headers[.setCookie] = returnCookie(returnToken, session: visit.session.id, setupIntent: intent, maxAge: 3600)
                    return response
                }
            } catch PortalPaymentMethodForm.Refusal.expiryFormat {
                return page.add(form, error: page.text.expiryFormat, invalid: .cardExpiry).response(status: .badRequest)
            } catch let error as PurseError where error.category == .invalidRequest || error.category == .card {
                let field = PortalPaymentMethodForm.field(for: error.param)
                let status: HTTPResponse.Status = error.category == .card ? Self.paymentRequired : .badRequest
                return page.add(form, error: Self.message(for: error, field: field, page.text), invalid: field).response(status: status)
            }
        }
    }

    /// Where the authentication page sends the customer back to, with its verdict recorded. Its
    /// URL has no session token (the intent stores it): the browser proves it is the one that
    /// left with the return cookie.
    @Sendable func returnFromAuthentication(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        let (id, intent) = (context.parameters.get("id") ?? "", context.parameters.get("setup_intent") ?? "")
        let makeDefault = request.uri.queryParameters.get("make_default") == "true"
        let cookie = Self.cookie(Self.returnCookie, in: request.headers[values: .cookie])
        var response = try await respond(request) {
            try await pages.visit(id, returningFrom: intent, makeDefault: makeDefault, returnToken: cookie ?? "")
        } _: { visit, page in
            let outcome = try await pages.finishAddition(setupIntent: intent, makeDefault: makeDefault, in: visit, request: Self.requestInfo(context))
            if case .failure(let error) = outcome {
                let failed = "failed=\(error.code ?? "card_declined")"
                return Self.redirect(to: visit.isFlowPending ? "\(visit.url)?\(failed)" : "\(visit.url)/add?\(failed)")
            }
            let target = completionTarget(visit, notice: .added)
            guard target.hasPrefix(visit.url) else {
                // Another site: the authentication page's form-action would stop a redirect there.
                var saved = page.saved()
                saved.refreshTo = target
                return saved.response()
            }
            return Self.redirect(to: target)
        }
        // Spent: the way back works once.
        if cookie != nil { response.headers[.setCookie] = returnCookie("", session: id, setupIntent: intent, maxAge: 0) }
        return response
    }

    /// The `Set-Cookie` of the way back from 3D Secure: for that one path, never sent to scripts
    /// or along with another site's requests (but with the top-level redirect back), and
    /// `Secure` when Purse is served over https.
    private func returnCookie(_ value: String, session: String, setupIntent: String, maxAge: Int) -> String {
        let url = BillingPortalPages.returnURL(base: publicURL.base, session: session, setupIntent: setupIntent)
        let path = URLComponents(string: url)?.path ?? "/"
        let secure = publicURL.base.lowercased().hasPrefix("https:") ? "; Secure" : ""
        return "\(Self.returnCookie)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure)"
    }

    @Sendable func setDefault(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        try await withForm(request, context) { visit, _, _ in
            try await pages.setDefault(context.parameters.get("payment_method") ?? "", in: visit, request: Self.requestInfo(context))
            return Self.redirect(to: "\(visit.url)?done=default")
        }
    }

    @Sendable func remove(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        try await withForm(request, context) { visit, page, _ in
            do {
                try await pages.remove(context.parameters.get("payment_method") ?? "", in: visit, request: Self.requestInfo(context))
            } catch let error as PurseError where error.code == "default_payment_method_required" {
                return page.methods(notice: nil, error: page.text.removeBlocked).response(status: .badRequest)
            }
            return Self.redirect(to: "\(visit.url)?done=removed")
        }
    }

    @Sendable func done(_ request: Request, _ context: PurseRequestContext) async throws -> Response {
        try await withVisit(request, context) { visit, page in
            guard visit.session.flow != nil, !visit.isFlowPending else { return Self.redirect(to: visit.url) }
            return page.saved().response()
        }
    }

    // MARK: - Around every page

    /// Runs `body` for an open session; a closed or unknown one, or an object the customer cannot
    /// see, gets the "link has expired" page (404), whatever the URL says.
    private func withVisit(
        _ request: Request, _ context: PurseRequestContext,
        _ body: (BillingPortalPages.Visit, PortalPage) async throws -> Response
    ) async throws -> Response {
        try await respond(request) {
            try await pages.visit(context.parameters.get("id") ?? "", token: context.parameters.get("token") ?? "")
        } _: { visit, page in
            try await body(visit, page)
        }
    }

    private func respond(
        _ request: Request, opening: () async throws -> BillingPortalPages.Visit,
        _ body: (BillingPortalPages.Visit, PortalPage) async throws -> Response
    ) async throws -> Response {
        let acceptLanguage = request.headers[.acceptLanguage]
        do {
            let visit = try await opening()
            let page = PortalPage(visit: visit, text: PortalText.forLocale(visit.session.locale, acceptLanguage: acceptLanguage))
            do {
                return try await body(visit, page)
            } catch let error as PurseError where error.category == .permission {
                return PortalPage.forbidden(page.text).response(status: .forbidden)
            } catch let error as PurseError where error.category == .conflict {
                // Another request held the customer: nothing changed, and trying again works.
                return page.methods(notice: nil, error: page.text.tryAgain).response(status: .conflict)
            } catch let error as PurseError where error.category != .notFound {
                return page.methods(notice: nil, error: Self.message(for: error, field: nil, page.text)).response(status: .badRequest)
            }
        } catch let error as PurseError where error.category == .notFound {
            return PortalPage.closed(PortalText.forLocale(nil, acceptLanguage: acceptLanguage)).response(status: .notFound)
        } catch is DatabaseError {
            return PortalPage.failed(PortalText.forLocale(nil, acceptLanguage: acceptLanguage)).response(status: .serviceUnavailable)
        }
    }

    /// ``withVisit(_:_:_:)`` for a form's POST: the form token must be the session's and the
    /// request must come from the page's own origin.
    private func withForm(
        _ request: Request, _ context: PurseRequestContext,
        _ body: (BillingPortalPages.Visit, PortalPage, ParamObject) async throws -> Response
    ) async throws -> Response {
        guard let fields = try await HTMLPage.formFields(of: request) else { return HTMLPage.tooLarge(again: "send the form") }
        return try await withVisit(request, context) { visit, page in
            guard HTMLPage.isFromOwnSite(request, publicURL: publicURL.base), case .string(let token)? = fields["csrf_token"],
                pages.isFormToken(token, of: visit)
            else {
                return PortalPage.forbidden(page.text).response(status: .forbidden)
            }
            return try await body(visit, page, fields)
        }
    }

    /// A new form: the type asked for in `?type=`, else the first the page offers; ticked to
    /// become the default when the customer has none.
    private func newForm(_ visit: BillingPortalPages.Visit, request: Request) -> PortalPaymentMethodForm {
        let asked = request.uri.queryParameters.get("type").flatMap(PaymentMethodType.init(rawValue:))
        let type = asked.flatMap { visit.addableTypes.contains($0) ? $0 : nil } ?? visit.addableTypes.first ?? .card
        return PortalPaymentMethodForm(type: type, makeDefault: visit.defaultMethod == nil)
    }

    /// Where a saved method sends the customer: the flow's `after_completion`, else the page.
    private func completionTarget(_ visit: BillingPortalPages.Visit, notice: PortalPage.Notice) -> String {
        guard visit.isFlowPending, let after = visit.session.flow?.afterCompletion else { return "\(visit.url)?done=\(notice.rawValue)" }
        switch after.type {
        case "redirect": return after.redirect?.returnURL ?? visit.url
        case "hosted_confirmation": return "\(visit.url)/done"
        default: return "\(visit.url)?done=\(notice.rawValue)"
        }
    }

    /// Why an attempt that came back from 3D Secure failed (`?failed=` its error code), in the
    /// catalogue's words.
    private static func failure(_ request: Request, _ text: PortalText) -> String? {
        guard let code = request.uri.queryParameters.get("failed").map({ String($0) }), code.allSatisfy({ $0.isLowercase || $0 == "_" })
        else { return nil }
        return message(for: PurseError(.card, code: code, message: code), field: nil, text)
    }

    /// What the customer reads for an error: the catalogue's sentence for a decline or a field,
    /// never the developer's message (which may be in another language).
    static func message(for error: PurseError, field: PortalPaymentMethodForm.Field?, _ text: PortalText) -> String {
        switch error.declineCode ?? error.code {
        case "insufficient_funds": return text.insufficientFunds
        case "expired_card": return text.expiredCard
        case "incorrect_cvc", "invalid_cvc": return text.incorrectCVC
        case "processing_error": return text.processingError
        case "card_declined", "generic_decline", "lost_card", "stolen_card", "do_not_honor", "card_velocity_exceeded": return text.declined
        case "setup_intent_authentication_failure": return text.authenticationFailed
        default: break
        }
        if error.category == .card, field == nil { return text.declined }
        guard let field else { return text.tryAgain }
        return error.code == "parameter_missing" ? text.required(field.label(text)) : text.invalid(field.label(text))
    }

    static let paymentRequired = HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required")

    /// The cookie a browser leaving for 3D Secure carries back (``returnFromAuthentication(_:_:)``).
    static let returnCookie = "purse_portal_return"

    /// A cookie's value in `Cookie` headers.
    static func cookie(_ name: String, in headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    private static func requestInfo(_ context: PurseRequestContext) -> RequestInfo {
        RequestInfo(id: context.requestID, idempotencyKey: nil, apiVersion: RequestInfo.defaultAPIVersion)
    }

    private static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .contentLength: "0", .cacheControl: "no-store"])
    }
}
