/// Every word the customer portal's pages show, in each language they speak. One catalogue, so
/// a page cannot show a sentence that has no translation: adding a language is adding a value.
struct PortalText: Sendable {
    /// The page's `lang`.
    let language: String
    let paymentMethods: String
    let addPaymentMethod: String
    let addTitle: String
    let defaultBadge: String
    let makeDefault: String
    let remove: String
    let removeBlocked: String
    let expires: @Sendable (String) -> String
    let noPaymentMethods: String
    let added: String
    let defaultChanged: String
    let removed: String
    let returnTo: @Sendable (String) -> String
    let card: String
    let sepaDebit: String
    let cardNumber: String
    let expiry: String
    let expiryHint: String
    let cvc: String
    let name: String
    let email: String
    let phone: String
    let line1: String
    let line2: String
    let city: String
    let state: String
    let postalCode: String
    let country: String
    let iban: String
    let useAsDefault: String
    let save: String
    let cancel: String
    let mandate: @Sendable (String) -> String
    let savedTitle: String
    let savedBody: String
    let expiredTitle: String
    let expiredBody: String
    let forbiddenTitle: String
    let forbiddenBody: String
    let required: @Sendable (String) -> String
    let invalid: @Sendable (String) -> String
    let expiryFormat: String
    let declined: String
    let insufficientFunds: String
    let expiredCard: String
    let incorrectCVC: String
    let processingError: String
    let authenticationFailed: String
    let tryAgain: String
    let paymentMethodType: String
    let privacyPolicy: String
    let termsOfService: String

    /// The catalogue for a session's `locale` (nil or `auto`: the browser's `Accept-Language`).
    static func forLocale(_ locale: String?, acceptLanguage: String?) -> PortalText {
        if let locale, locale != "auto" { return language(of: locale) ?? .english }
        for range in (acceptLanguage ?? "").split(separator: ",") {
            let tag = range.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if let text = language(of: tag) { return text }
        }
        return .english
    }

    private static func language(of tag: String) -> PortalText? {
        switch tag.lowercased().split(separator: "-").first {
        case "en": .english
        case "fr": .french
        default: nil
        }
    }

    static let english = PortalText(
        language: "en", paymentMethods: "Payment methods", addPaymentMethod: "Add payment method", addTitle: "Add a payment method",
        defaultBadge: "Default", makeDefault: "Make default", remove: "Remove",
        removeBlocked: "To remove your default payment method, make another one the default first.",
        expires: { "Expires \($0)" }, noPaymentMethods: "You have no saved payment methods yet.", added: "Payment method added.",
        defaultChanged: "Default payment method updated.", removed: "Payment method removed.", returnTo: { "Return to \($0)" },
        card: "Card", sepaDebit: "SEPA Direct Debit", cardNumber: "Card number",
        expiry: "Expiry date", expiryHint: "MM / YY", cvc: "Security code (CVC)", name: "Full name", email: "Email", phone: "Phone",
        line1: "Address line 1", line2: "Address line 2 (optional)", city: "City", state: "State or province",
        postalCode: "Postal code", country: "Country (2-letter code, such as US)", iban: "IBAN",
        useAsDefault: "Use as my default payment method", save: "Save", cancel: "Cancel",
        mandate: {
            "By providing your IBAN and confirming, you authorise \($0) and its payment service provider to send instructions to "
                + "your bank to debit your account in accordance with those instructions. You are entitled to a refund from your bank "
                + "under the terms of your agreement with it, claimed within 8 weeks of the date your account was debited."
        },
        savedTitle: "Payment method saved", savedBody: "Your payment method was saved and is now your default.",
        expiredTitle: "This link has expired", expiredBody: "Go back to where you came from and open your payment methods again.",
        forbiddenTitle: "This form cannot be sent", forbiddenBody: "Reload the page and try again.",
        required: { "\($0) is required." }, invalid: { "Check the \($0.lowercased())." },
        expiryFormat: "Enter the expiry date as MM / YY.", declined: "Your card was declined.",
        insufficientFunds: "Your card has insufficient funds.", expiredCard: "Your card has expired.",
        incorrectCVC: "Your card's security code is incorrect.", processingError: "An error occurred while processing your card. Try again.",
        authenticationFailed: "We could not authenticate your payment method. Choose another one or try again.",
        tryAgain: "Something went wrong. Try again.", paymentMethodType: "Payment method type", privacyPolicy: "Privacy policy",
        termsOfService: "Terms of service"
    )

    static let french = PortalText(
        language: "fr", paymentMethods: "Moyens de paiement", addPaymentMethod: "Ajouter un moyen de paiement",
        addTitle: "Ajouter un moyen de paiement", defaultBadge: "Par défaut", makeDefault: "Définir par défaut", remove: "Supprimer",
        removeBlocked: "Pour supprimer votre moyen de paiement par défaut, définissez d’abord un autre moyen par défaut.",
        expires: { "Expire le \($0)" }, noPaymentMethods: "Vous n’avez encore aucun moyen de paiement enregistré.",
        added: "Moyen de paiement ajouté.", defaultChanged: "Moyen de paiement par défaut mis à jour.", removed: "Moyen de paiement supprimé.",
        returnTo: { "Retour à \($0)" }, card: "Carte", sepaDebit: "Prélèvement SEPA",
        cardNumber: "Numéro de carte", expiry: "Date d’expiration", expiryHint: "MM / AA", cvc: "Code de sécurité (CVC)",
        name: "Nom complet", email: "E-mail", phone: "Téléphone", line1: "Adresse, ligne 1", line2: "Adresse, ligne 2 (facultatif)",
        city: "Ville", state: "Région ou province", postalCode: "Code postal", country: "Pays (code à 2 lettres, par exemple FR)",
        iban: "IBAN", useAsDefault: "Utiliser comme moyen de paiement par défaut", save: "Enregistrer", cancel: "Annuler",
        mandate: {
            "En fournissant votre IBAN et en confirmant, vous autorisez \($0) et son prestataire de services de paiement à envoyer des "
                + "instructions à votre banque pour débiter votre compte conformément à ces instructions. Vous avez droit à un "
                + "remboursement par votre banque selon les conditions de votre convention avec elle, à demander dans les 8 semaines "
                + "suivant la date du débit."
        },
        savedTitle: "Moyen de paiement enregistré", savedBody: "Votre moyen de paiement a été enregistré et il est désormais utilisé par défaut.",
        expiredTitle: "Ce lien a expiré", expiredBody: "Revenez à la page d’où vous veniez et ouvrez à nouveau vos moyens de paiement.",
        forbiddenTitle: "Ce formulaire ne peut pas être envoyé", forbiddenBody: "Rechargez la page et réessayez.",
        required: { "\($0) : ce champ est obligatoire." },
        invalid: { "\($0) : vérifiez ce champ." }, expiryFormat: "Saisissez la date d’expiration au format MM / AA.",
        declined: "Votre carte a été refusée.", insufficientFunds: "Le solde de votre carte est insuffisant.",
        expiredCard: "Votre carte a expiré.", incorrectCVC: "Le code de sécurité de votre carte est incorrect.",
        processingError: "Une erreur est survenue lors du traitement de votre carte. Réessayez.",
        authenticationFailed: "Nous n’avons pas pu authentifier votre moyen de paiement. Choisissez-en un autre ou réessayez.",
        tryAgain: "Une erreur est survenue. Réessayez.", paymentMethodType: "Type de moyen de paiement",
        privacyPolicy: "Politique de confidentialité", termsOfService: "Conditions d’utilisation"
    )
}
