import Foundation
import PurseClient

/// A selection store in memory, as a second place to look (a device's disk).
final class MemorySelectionStore: SelectedPaymentOptionStore, @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var values: [String: String] = [:]

    func selectedPaymentOption(forCustomer customerID: String) -> String? {
        lock.withLock { values[customerID] }
    }

    func setSelectedPaymentOption(_ rawValue: String, forCustomer customerID: String) {
        lock.withLock { values[customerID] = rawValue }
    }
}
