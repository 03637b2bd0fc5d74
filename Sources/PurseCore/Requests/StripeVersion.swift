/// The `Stripe-Version` header: `YYYY-MM-DD`, optionally `.name` (`2026-10-28.endive`), and
/// optionally `; key=value` parts (stripe-ios sends beta flags that way).
public enum StripeVersion {
    /// The version a request asks for, or nil when it sent none. Throws for a malformed one.
    public static func parse(_ header: String?) throws -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let version = parts.first, isVersion(version),
            parts.dropFirst().allSatisfy(isParameter)
        else {
            throw PurseError(.invalidRequest, message: "Invalid Stripe API version: \(header)", param: "Stripe-Version")
        }
        return version
    }

    private static func isVersion(_ text: String) -> Bool {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let date = pieces[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            date.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let month = Int(date[1]), (1...12).contains(month), let day = Int(date[2]), (1...31).contains(day)
        else { return false }
        guard pieces.count == 2 else { return true }
        let name = pieces[1]
        return !name.isEmpty && name.count <= 40 && name.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
    }

    private static func isParameter(_ text: String) -> Bool {
        let pieces = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else { return false }
        return pieces.allSatisfy { $0.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "_-.".contains($0) } }
    }
}

extension Character {
    var isASCIILetter: Bool { isASCII && isLetter }
}
