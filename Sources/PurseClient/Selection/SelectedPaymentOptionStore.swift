/// A device-local copy of customers' selected options, read only when Purse cannot be reached
/// (the server's copy is the one every device shares, spec §4). Values are
/// ``CustomerPaymentOption/rawValue``s, or `""` for "no option". Implement it over whatever your
/// app persists to; ``UserDefaultsSelectionStore`` is the ready one.
public protocol SelectedPaymentOptionStore: Sendable {
    /// The value last saved for `customerID`, `""` for none, or nil if nothing was saved.
    func selectedPaymentOption(forCustomer customerID: String) -> String?

    /// Saves the value the server last reported for `customerID`.
    func setSelectedPaymentOption(_ rawValue: String, forCustomer customerID: String)
}
