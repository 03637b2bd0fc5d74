/// The option a customer picked on any device (spec §4): a payment method, `apple_pay`, `link`,
/// or none. Purse keeps it on the server so every device shows the same one.
public struct SelectedPaymentOption: Codable, Sendable, Hashable {
    public var object: String = "selected_payment_option"
    public var customer: String
    /// A payment method id, `apple_pay`, `link`, or nil.
    public var option: String?
    /// The selected payment method, when `option` names one.
    public var paymentMethod: PaymentMethod?
    /// Why the selected method cannot be shown under the settings in force (`filtered`, `expired`), or nil.
    public var unavailableReason: String?

    public init(customer: String, option: String?, paymentMethod: PaymentMethod?, unavailableReason: String? = nil) {
        self.customer = customer
        self.option = option
        self.paymentMethod = paymentMethod
        self.unavailableReason = unavailableReason
    }

    enum CodingKeys: String, CodingKey {
        case object, customer, option
        case paymentMethod = "payment_method"
        case unavailableReason = "unavailable_reason"
    }
}
