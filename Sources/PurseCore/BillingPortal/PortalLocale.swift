/// The locales a portal session may ask for: Stripe's list for `billing_portal.session.locale`
/// (`auto` follows the customer's browser).
public enum PortalLocale {
    public static let stripeLocales: Set<String> = [
        "auto", "bg", "cs", "da", "de", "el", "en", "en-AU", "en-CA", "en-GB", "en-IE", "en-IN", "en-NZ", "en-SG", "es", "es-419",
        "et", "fi", "fil", "fr", "fr-CA", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb", "nl", "pl", "pt", "pt-BR",
        "ro", "ru", "sk", "sl", "sv", "th", "tr", "vi", "zh", "zh-HK", "zh-TW",
    ]
}
