package import PurseCore

/// Which parameters a request may send that its endpoint does not read: spec §3's parameter
/// policy, decided here and nowhere else.
///
/// - **The secret key is strict**, as Stripe is: an unknown parameter is a 400 naming it.
/// - **Stripe's client SDKs** (publishable, ephemeral and customer-session keys) attach fraud
///   signals and telemetry to their requests. Those fields are accepted where the SDKs place
///   them, at the top level or inside `payment_method_data`, and ignored.
/// - **The private endpoints only the SDKs call** (`/v1/elements/...` and Financial
///   Connections' link account sessions) change their parameters with every SDK release, so a
///   client credential may send anything there; what Purse does not read is ignored.
///
/// Ignoring never changes what a request does: the endpoint's own parameters are decoded and
/// checked exactly as under the strict policy. ``IgnoredParameters`` counts what was ignored.
package struct ParameterPolicy: Sendable, Equatable {
    package enum Tolerance: Sendable, Equatable {
        /// Unknown parameters are refused.
        case none
        /// The SDKs' fraud and telemetry fields are ignored; anything else unknown is refused.
        case clientTelemetry
        /// Anything the endpoint does not read is ignored.
        case anything
    }

    package let tolerance: Tolerance

    package static let strict = ParameterPolicy(tolerance: .none)

    package init(tolerance: Tolerance) {
        self.tolerance = tolerance
    }

    /// The policy for a request to the route with template `routePath` made with `credential`
    /// (nil on public routes, which are strict).
    package init(credential: Credential?, routePath: String) {
        switch credential?.kind {
        case nil, .secret?, .billingPortal?:
            self = .strict
        case .publishable?, .ephemeralKey?, .customerSession?:
            self.init(tolerance: Self.isPrivateSDKRoute(routePath) ? .anything : .clientTelemetry)
        }
    }

    /// Routes only Stripe's SDKs call, with parameters that follow the SDKs' releases.
    package static let privateSDKPrefixes = [
        "/v1/elements/", "/v1/financial_connections/sessions/synchronize", "/v1/link_account_sessions/", "/v1/connections/",
    ]

    /// Their routes under other resources.
    package static let privateSDKSuffixes = ["/link_account_sessions"]

    package static func isPrivateSDKRoute(_ routePath: String) -> Bool {
        privateSDKPrefixes.contains { routePath.hasPrefix($0) } || privateSDKSuffixes.contains { routePath.hasSuffix($0) }
    }

    /// The fraud signals and telemetry Stripe's client SDKs send, which never change what a
    /// request does:
    /// - `muid`, `guid`, `sid`: fraud-detection identifiers (stripe-ios `STPTelemetryClient`,
    ///   stripe-android `FraudDetectionData`, Stripe.js);
    /// - `payment_user_agent`: the SDK and its version (`stripe-ios/25.0.0; variant.paymentsheet`);
    /// - `client_attribution_metadata`: which integration made the request;
    /// - `time_on_page`, `pasted_fields`, `referrer`: Stripe.js's form telemetry.
    package static let clientTelemetry: Set<String> = [
        "muid", "guid", "sid", "payment_user_agent", "client_attribution_metadata", "time_on_page", "pasted_fields",
        "referrer",
    ]

    /// The hashes the telemetry fields may sit in, besides the top level: the SDKs put them in
    /// the payment method they create inline with a confirmation.
    package static let telemetryContainers: Set<String> = ["payment_method_data"]

    /// Whether a parameter the endpoint did not read (its path, `["payment_method_data", "muid"]`)
    /// is ignored rather than refused.
    package func ignores(_ path: [String]) -> Bool {
        switch tolerance {
        case .none:
            return false
        case .anything:
            return true
        case .clientTelemetry:
            guard let name = path.last, Self.clientTelemetry.contains(name) else { return false }
            return path.count == 1 || (path.count == 2 && Self.telemetryContainers.contains(path[0]))
        }
    }
}
