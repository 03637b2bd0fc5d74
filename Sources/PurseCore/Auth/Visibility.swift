/// What a caller may see of an account: all of it, or for a customer's credential (an
/// ephemeral key, a customer session's key) one customer and what is attached to it.
public struct Visibility: Sendable, Hashable {
    public let account: String
    /// The one customer a customer's credential may see; nil for the account's own keys.
    public let customer: String?

    public init(account: String, customer: String? = nil) {
        self.account = account
        self.customer = customer
    }

    /// Whether a customer of the account is in view.
    public func includes(customer id: String) -> Bool {
        customer == nil || customer == id
    }
}

extension Credential {
    public var visibility: Visibility { Visibility(account: accountID, customer: customerID) }
}
