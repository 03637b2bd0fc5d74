public import Foundation

/// Keeps the selected options in `UserDefaults` under one key, as a `[customerID: option]`
/// dictionary, the way stripe-ios's adapter keeps its device-local default.
public struct UserDefaultsSelectionStore: SelectedPaymentOptionStore, @unchecked Sendable {
    // @unchecked: UserDefaults is documented as thread-safe, but is not marked Sendable on
    // every platform this builds for.
    private let defaults: UserDefaults
    private let key: String

    /// A store in `defaults` (the standard ones unless told) under `key`.
    public init(defaults: UserDefaults = .standard, key: String = "com.purse.client:selectedPaymentOptions") {
        self.defaults = defaults
        self.key = key
    }

    /// The value last saved for `customerID`, `""` for none, or nil if nothing was saved.
    public func selectedPaymentOption(forCustomer customerID: String) -> String? {
        (defaults.dictionary(forKey: key) as? [String: String])?[customerID]
    }

    /// Saves the value the server last reported for `customerID`.
    public func setSelectedPaymentOption(_ rawValue: String, forCustomer customerID: String) {
        var all = (defaults.dictionary(forKey: key) as? [String: String]) ?? [:]
        all[customerID] = rawValue
        defaults.set(all, forKey: key)
    }
}
