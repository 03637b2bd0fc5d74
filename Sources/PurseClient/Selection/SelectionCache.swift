/// The last selected option the server reported for each customer, in memory and, when the app
/// gave one, in a ``SelectedPaymentOptionStore``, for reads while Purse cannot be reached.
actor SelectionCache {
    private var memory: [String: String] = [:]
    private let store: (any SelectedPaymentOptionStore)?

    init(store: (any SelectedPaymentOptionStore)?) {
        self.store = store
    }

    /// Records what the server reported.
    func remember(_ option: CustomerPaymentOption?, forCustomer customerID: String) {
        let raw = option?.rawValue ?? ""
        memory[customerID] = raw
        store?.setSelectedPaymentOption(raw, forCustomer: customerID)
    }

    /// The last known option: `.some(nil)` for "none", nil when nothing is known.
    func lastKnown(forCustomer customerID: String) -> CustomerPaymentOption?? {
        guard let raw = memory[customerID] ?? store?.selectedPaymentOption(forCustomer: customerID) else { return nil }
        return .some(CustomerPaymentOption(rawValue: raw))
    }
}
