import PurseCore
import PurseModels

/// The customer portal's pages as HTML, in the session's language: the payment-methods page, the
/// add form, the confirmation after a flow, and the pages for a closed link or a refused form.
/// Everything shown from data goes through ``HTMLPage/escaped(_:)``.
struct PortalPage {
    let visit: BillingPortalPages.Visit
    let text: PortalText

    /// The notices a redirect after an action asks for (`?done=...`).
    enum Notice: String {
        case added, `default`, removed
    }

    // MARK: - The payment-methods page

    func methods(notice: Notice?, error: String? = nil) -> HTMLPage {
        let url = visit.url
        var body = header() + "<h1>\(e(text.paymentMethods))</h1>"
        if let notice {
            let message =
                switch notice {
                case .added: text.added
                case .default: text.defaultChanged
                case .removed: text.removed
                }
            body += "<p id=\"notice\" class=\"notice\" role=\"status\">\(e(message))</p>"
        }
        if let error { body += "<p id=\"form-error\" class=\"error\" role=\"alert\">\(e(error))</p>" }
        if visit.methods.isEmpty {
            body += "<p id=\"no-payment-methods\">\(e(text.noPaymentMethods))</p>"
        } else {
            body += "<ul id=\"payment-methods\" class=\"methods\">"
            for method in visit.methods {
                let isDefault = method.id == visit.defaultMethod
                body += "<li class=\"payment-method\" data-payment-method=\"\(e(method.id))\">"
                body += "<div class=\"method-name\">\(e(Self.title(of: method, text)))"
                if isDefault { body += "<span class=\"badge\" id=\"default-badge\">\(e(text.defaultBadge))</span>" }
                body += "</div>"
                if let card = method.card {
                    let expiry = "\(card.expMonth < 10 ? "0" : "")\(card.expMonth)/\(card.expYear % 100 < 10 ? "0" : "")\(card.expYear % 100)"
                    body += "<div class=\"method-detail\">\(e(text.expires(expiry)))</div>"
                }
                if visit.canUpdate {
                    var actions = ""
                    if !isDefault {
                        actions += form(
                            action: "\(url)/payment_methods/\(method.id)/default", button: text.makeDefault,
                            label: "\(text.makeDefault): \(Self.title(of: method, text))"
                        )
                    }
                    if visit.canRemove(method) {
                        actions += form(
                            action: "\(url)/payment_methods/\(method.id)/remove", button: text.remove,
                            label: "\(text.remove): \(Self.title(of: method, text))"
                        )
                    } else {
                        actions += "<p class=\"method-detail\">\(e(text.removeBlocked))</p>"
                    }
                    body += "<div class=\"actions\">\(actions)</div>"
                }
                body += "</li>"
            }
            body += "</ul>"
        }
        if visit.canUpdate, !visit.addableTypes.isEmpty {
            body += "<p><a id=\"add-payment-method\" class=\"button primary\" href=\"\(e(url))/add\">\(e(text.addPaymentMethod))</a></p>"
        }
        body += returnLink()
        return HTMLPage(title: text.paymentMethods, body: body, language: text.language)
    }

    // MARK: - The add form

    /// The form for `form.type`, filled with what the customer typed before (never card data),
    /// with `error` when the last attempt failed and `invalid` naming the field at fault.
    func add(_ form: PortalPaymentMethodForm, error: String? = nil, invalid: PortalPaymentMethodForm.Field? = nil) -> HTMLPage {
        let url = visit.url
        let title = visit.isFlowPending ? text.addTitle : text.addPaymentMethod
        var body = header() + "<h1>\(e(title))</h1>"
        if let error {
            body += "<p id=\"form-error\" class=\"error\" role=\"alert\">\(e(error))</p>"
        }
        if visit.addableTypes.count > 1 {
            body += "<nav class=\"types\" aria-label=\"\(e(text.paymentMethodType))\">"
            for type in visit.addableTypes {
                let current = type == form.type ? " aria-current=\"page\"" : ""
                body += "<a class=\"type-choice\" href=\"\(e(url))/add?type=\(type.rawValue)\"\(current)>\(e(Self.typeName(type, text)))</a>"
            }
            body += "</nav>"
        }
        body += "<form id=\"add-form\" method=\"post\" action=\"\(e(url))/payment_methods\" novalidate>"
        body += "<input type=\"hidden\" name=\"csrf_token\" value=\"\(e(visit.formToken))\">"
        body += "<input type=\"hidden\" name=\"type\" value=\"\(form.type.rawValue)\">"
        for (field, required) in PortalPaymentMethodForm.fields(for: form.type, settings: visit.settings) {
            body += input(field, required: required, value: field.isSensitive ? nil : form.values[field], invalid: field == invalid, error: error)
        }
        if form.type == .sepaDebit {
            body += "<p id=\"mandate\"><small>\(e(text.mandate(visit.merchantName)))</small></p>"
        }
        if !visit.isFlowPending {
            let checked = form.makeDefault ? " checked" : ""
            body += "<div class=\"checkbox\"><input type=\"checkbox\" id=\"make_default\" name=\"make_default\" value=\"true\"\(checked)>"
            body += "<label for=\"make_default\">\(e(text.useAsDefault))</label></div>"
        }
        body += "<button type=\"submit\" id=\"save\" class=\"primary\">\(e(text.save))</button></form>"
        if !visit.isFlowPending { body += "<p><a id=\"cancel\" href=\"\(e(url))\">\(e(text.cancel))</a></p>" }
        body += returnLink()
        var page = HTMLPage(title: title, body: body, language: text.language)
        page.formatsInputs = form.type == .card
        // A flow's save may end on the merchant's site.
        if visit.isFlowPending { page.formTarget = visit.session.flow?.afterCompletion.redirect?.returnURL }
        return page
    }

    // MARK: - After a flow

    func saved() -> HTMLPage {
        var body = header() + "<h1>\(e(text.savedTitle))</h1><p>\(e(text.savedBody))</p>"
        if let message = visit.session.flow?.afterCompletion.hostedConfirmation?.customMessage {
            body += "<p id=\"custom-message\">\(e(message))</p>"
        }
        body += returnLink()
        return HTMLPage(title: text.savedTitle, body: body, language: text.language)
    }

    // MARK: - Pieces

    /// The merchant's headline, when the configuration has one.
    private func header() -> String {
        guard let headline = visit.configuration.businessProfile.headline else { return "" }
        return "<header class=\"merchant\"><p>\(e(headline))</p></header>"
    }

    /// The way back to the merchant, and the merchant's policies when the configuration links them.
    private func returnLink() -> String {
        var links = ""
        if let target = visit.session.returnURL {
            links += "<p><a id=\"return-link\" href=\"\(e(target))\">\(e(text.returnTo(visit.merchantName)))</a></p>"
        }
        let profile = visit.configuration.businessProfile
        let policies = [(profile.privacyPolicyURL, text.privacyPolicy), (profile.termsOfServiceURL, text.termsOfService)]
            .compactMap { url, label in url.map { "<a href=\"\(e($0))\">\(e(label))</a>" } }
        if !policies.isEmpty { links += "<footer><p>\(policies.joined(separator: " · "))</p></footer>" }
        return links
    }

    private func form(action: String, button: String, label: String) -> String {
        "<form method=\"post\" action=\"\(e(action))\"><input type=\"hidden\" name=\"csrf_token\" value=\"\(e(visit.formToken))\">"
            + "<button type=\"submit\" aria-label=\"\(e(label))\">\(e(button))</button></form>"
    }

    private func input(
        _ field: PortalPaymentMethodForm.Field, required: Bool, value: String?, invalid: Bool, error: String?
    ) -> String {
        let id = field.rawValue
        var attributes = "id=\"\(id)\" name=\"\(id)\" autocomplete=\"\(field.autocomplete)\""
        switch field {
        case .cardNumber: attributes += " inputmode=\"numeric\" data-format=\"card\" maxlength=\"23\""
        case .cardExpiry: attributes += " inputmode=\"numeric\" data-format=\"expiry\" placeholder=\"\(e(text.expiryHint))\" maxlength=\"9\""
        case .cardCVC: attributes += " inputmode=\"numeric\" maxlength=\"4\""
        case .email: attributes += " type=\"email\""
        case .phone: attributes += " type=\"tel\""
        case .country: attributes += " maxlength=\"2\" autocapitalize=\"characters\""
        default: break
        }
        if required { attributes += " required aria-required=\"true\"" }
        if let value { attributes += " value=\"\(e(value))\"" }
        var hint = ""
        if field == .cardExpiry {
            hint = "<span id=\"\(id)-hint\" class=\"method-detail\"> (\(e(text.expiryHint)))</span>"
        }
        var describedBy = field == .cardExpiry ? ["\(id)-hint"] : []
        var message = ""
        if invalid, let error {
            attributes += " aria-invalid=\"true\""
            describedBy.append("\(id)-error")
            message = "<p id=\"\(id)-error\" class=\"field-error\">\(e(error))</p>"
        }
        if !describedBy.isEmpty { attributes += " aria-describedby=\"\(describedBy.joined(separator: " "))\"" }
        return "<label for=\"\(id)\">\(e(field.label(text)))\(hint)</label><input \(attributes)>\(message)"
    }

    static func title(of method: PaymentMethod, _ text: PortalText) -> String {
        if let card = method.card { return "\(brandName(card.brand)) •••• \(card.last4)" }
        if let sepa = method.sepaDebit { return "\(text.sepaDebit) •••• \(sepa.last4)" }
        if let bank = method.usBankAccount { return "\(bank.bankName ?? "Bank account") •••• \(bank.last4)" }
        return method.type
    }

    static func typeName(_ type: PaymentMethodType, _ text: PortalText) -> String {
        type == .card ? text.card : text.sepaDebit
    }

    private static func brandName(_ brand: String) -> String {
        switch brand {
        case "amex": "American Express"
        case "diners": "Diners Club"
        case "jcb": "JCB"
        case "unionpay": "UnionPay"
        case "mastercard": "Mastercard"
        default: brand.prefix(1).uppercased() + brand.dropFirst()
        }
    }

    private func e(_ text: String) -> String { HTMLPage.escaped(text) }

    // MARK: - Pages without a visit

    static func closed(_ text: PortalText) -> HTMLPage {
        HTMLPage(
            title: text.expiredTitle, body: "<h1>\(HTMLPage.escaped(text.expiredTitle))</h1><p>\(HTMLPage.escaped(text.expiredBody))</p>",
            language: text.language
        )
    }

    /// When the database could not answer: nothing was shown or changed.
    static func failed(_ text: PortalText) -> HTMLPage {
        HTMLPage(title: text.tryAgain, body: "<h1>\(HTMLPage.escaped(text.tryAgain))</h1>", language: text.language)
    }

    static func forbidden(_ text: PortalText) -> HTMLPage {
        HTMLPage(
            title: text.forbiddenTitle,
            body: "<h1>\(HTMLPage.escaped(text.forbiddenTitle))</h1><p>\(HTMLPage.escaped(text.forbiddenBody))</p>",
            language: text.language
        )
    }
}
