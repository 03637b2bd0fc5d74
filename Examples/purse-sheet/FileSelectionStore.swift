import Foundation
import PurseClient

/// Keeps the selected options in a small JSON file (`{"cus_...": "pm_..."}`): how an app that
/// is not on Apple platforms implements ``SelectedPaymentOptionStore``.
final class FileSelectionStore: SelectedPaymentOptionStore, @unchecked Sendable {
    // @unchecked: every access to the file goes through `lock`.
    private let url: URL
    private let lock = NSLock()

    init(path: String) {
        url = URL(fileURLWithPath: path)
    }

    func selectedPaymentOption(forCustomer customerID: String) -> String? {
        lock.withLock { read()[customerID] }
    }

    func setSelectedPaymentOption(_ rawValue: String, forCustomer customerID: String) {
        lock.withLock {
            var all = read()
            all[customerID] = rawValue
            // A copy for offline reads: losing a write costs only that.
            try? JSONEncoder().encode(all).write(to: url, options: .atomic)
        }
    }

    private func read() -> [String: String] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }
}
