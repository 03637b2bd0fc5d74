public import Foundation
public import PurseModels

/// Where saving a new payment method stands after a confirmation.
public enum SetupOutcome: Sendable, Hashable {
    /// Saved and attached to the customer.
    case succeeded(PaymentMethod)
    /// The bank wants the customer to authenticate (3D Secure): open
    /// ``PendingAuthentication/url`` in a browser, then call
    /// ``PurseCustomerAdapter/finishSetup(_:)`` once the customer is back.
    case requiresAction(PendingAuthentication)
}

/// A setup intent waiting for the customer to authenticate on the page Purse shows.
public struct PendingAuthentication: Sendable, Hashable {
    /// The page to open (`next_action.redirect_to_url.url`).
    public let url: URL
    /// Where the page sends the customer afterwards, when the confirmation gave a `return_url`.
    public let returnURL: URL?
    /// The setup intent (`seti_...`).
    public let setupIntentID: String
    /// The intent's client secret, which lets the publishable key read it back.
    let clientSecret: String

}
