import PurseModels

/// stripe-ios's "mobile session" contract for `GET /v1/elements/sessions` (StripePaymentSheet
/// `MobileSessionV1.swift`, `MobileSessionContractV1`, and `validateMobileSessionContractResponse`
/// in `STPAPIClient+PaymentSheet.swift`). A request that sends the header
/// `Stripe-Mobile-Session-Contract: major=1; revision=<16 hex>` refuses an answer without the same
/// header and a `mobile_payment_element` whose `contract` matches it.
///
/// Purse speaks major 1. It echoes the client's revision (the SDK accepts revision drift; what it
/// checks is that the header and the body agree), and answers a request for another major with
/// major 1, which that client then reports as unsupported rather than misreading.
public struct MobileSessionContract: Sendable, Equatable {
    public static let headerName = "Stripe-Mobile-Session-Contract"
    public static let major = 1
    /// The revision of the contract Purse was written against (stripe-ios `MobileSessionV1.swift`
    /// at commit 81349f474b31eaca973e829d367bb7eded955699).
    public static let knownRevision = "eae9b348c98cf67b"

    public let revision: String

    /// The contract to answer a request's header value with; nil when the request sent none.
    public init?(requestHeader: String?) {
        guard let requestHeader else { return nil }
        let revision = requestHeader.split(separator: ";").lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("revision=") }
            .map { String($0.dropFirst("revision=".count)) }
        self.revision = revision.flatMap { Self.isRevision($0) ? $0 : nil } ?? Self.knownRevision
    }

    /// The response header's value: `major=1; revision=...`, exactly as the SDK parses it.
    public var responseHeader: String { "major=\(Self.major); revision=\(revision)" }

    /// `mobile_payment_element`: the contract, and an explicit decision for every payment method
    /// type the session was asked about.
    func mobilePaymentElement(offered: [String], withheld: [(type: String, reason: String)]) -> JSONValue {
        let available: [JSONValue] = offered.map { ["payment_method_type": .string($0), "available": true] }
        let unavailable: [JSONValue] = withheld.map {
            ["payment_method_type": .string($0.type), "available": false, "reason": .string($0.reason)]
        }
        return [
            "contract": ["major": .int(Self.major), "revision": .string(revision)],
            "payment_method_availability": ["entries": .array(available + unavailable)],
            // Server-owned switches of the contract: Purse has no Financial Connections Lite and no
            // Link, and leaves layout and card funding to the app and the sheet settings.
            "features": [
                "financial_connections_lite": "disabled",
                "link_global_holdback_lookup": false,
                "force_vertical_payment_method_layout": false,
                "card_funding_filtering": false,
            ],
        ]
    }

    private static func isRevision(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
