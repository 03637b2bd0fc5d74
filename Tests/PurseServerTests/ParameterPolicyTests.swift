import Logging
import Prometheus
import PurseCore
import Testing

@testable import PurseParameters
@testable import PurseServer

/// Spec §3's parameter policy, without a server: which parameters each credential may send
/// beyond what an endpoint reads, and that ignoring them never loosens the endpoint's own checks.
@Suite("Parameter policy")
struct ParameterPolicyTests {
    private static let publishable = Credential(kind: .publishable, accountID: "acct_1", sourceID: "key_1")

    private func decode<Params: Decodable>(
        _ type: Params.Type, _ body: String, _ policy: ParameterPolicy
    ) throws -> ParamDecoder.Decoded<Params> {
        try ParamDecoder(policy: policy).decodeReportingIgnored(type, from: FormParser.parse(Array(body.utf8)))
    }

    private func refusal<Params: Decodable>(
        _ type: Params.Type, _ body: String, _ policy: ParameterPolicy, sourceLocation: SourceLocation = #_sourceLocation
    ) -> PurseError? {
        #expect(throws: PurseError.self, sourceLocation: sourceLocation) { try decode(type, body, policy) }
    }

    @Test(arguments: [
        (Credential.Kind.secret, "/v1/payment_methods", ParameterPolicy.Tolerance.none),
        (.secret, "/v1/elements/sessions", .none),
        (.publishable, "/v1/payment_methods", .clientTelemetry),
        (.publishable, "/v1/setup_intents/{id}/confirm", .clientTelemetry),
        (.ephemeralKey, "/v1/payment_methods/{id}", .clientTelemetry),
        (.customerSession, "/v1/customers/{id}", .clientTelemetry),
        (.publishable, "/v1/elements/sessions", .anything),
        (.customerSession, "/v1/elements/payment_methods/{id}/detach", .anything),
        (.ephemeralKey, "/v1/elements/customers/{id}/set_default_payment_method", .anything),
    ])
    func eachCredentialAndRouteGetsItsTolerance(kind: Credential.Kind, route: String, tolerance: ParameterPolicy.Tolerance) {
        let credential = Credential(kind: kind, accountID: "acct_1", sourceID: "key_1")
        #expect(ParameterPolicy(credential: credential, routePath: route).tolerance == tolerance)
    }

    @Test func publicRoutesAreStrict() {
        #expect(ParameterPolicy(credential: nil, routePath: "/v1/elements/sessions") == .strict)
    }

    @Test func theSecretKeyRefusesTheSDKsTelemetry() {
        for body in ["type=card&card[token]=tok_visa&muid=m", "type=card&card[token]=tok_visa&payment_user_agent=stripe-ios"] {
            let error = refusal(PaymentMethodCreateParameters.self, body, .strict)
            #expect(error?.code == "parameter_unknown")
        }
    }

    @Test func clientCredentialsMaySendTheTelemetryWhereTheSDKsPutIt() throws {
        let policy = ParameterPolicy(credential: Self.publishable, routePath: "/v1/setup_intents/{id}/confirm")
        let body =
            "client_secret=seti_1_secret_2&payment_method_data[type]=card&payment_method_data[card][token]=tok_visa"
            + "&payment_method_data[muid]=m&payment_method_data[guid]=g&payment_method_data[sid]=s"
            + "&payment_method_data[payment_user_agent]=stripe-ios%2F25.0.0"
            + "&payment_method_data[client_attribution_metadata][merchant_integration_source]=elements"
            + "&client_attribution_metadata[client_session_id]=abc&muid=m&use_stripe_sdk=true"
        let decoded = try decode(SetupIntentConfirmParameters.self, body, policy)
        #expect(decoded.params.paymentMethodData?.card?.token == "tok_visa")
        #expect(
            decoded.ignored == [
                "payment_method_data[muid]", "payment_method_data[guid]", "payment_method_data[sid]",
                "payment_method_data[payment_user_agent]", "payment_method_data[client_attribution_metadata]",
                "client_attribution_metadata", "muid",
            ]
        )
    }

    @Test(arguments: [
        ("type=card&card[token]=tok_visa&nope=1", "nope"),
        ("type=card&card[token]=tok_visa&billing_details[muid]=m", "billing_details[muid]"),
        ("type=card&card[token]=tok_visa&card[payment_user_agent]=x", "card[payment_user_agent]"),
        ("type=card&card[token]=tok_visa&mobile_session_id=x", "mobile_session_id"),
    ])
    func clientCredentialsStillHaveOtherUnknownParametersRefused(body: String, param: String) {
        let policy = ParameterPolicy(credential: Self.publishable, routePath: "/v1/payment_methods")
        let error = refusal(PaymentMethodCreateParameters.self, body, policy)
        #expect(error?.code == "parameter_unknown")
        #expect(error?.param == param)
    }

    @Test func privateSDKRoutesIgnoreAnythingButStillCheckWhatTheyRead() throws {
        let policy = ParameterPolicy(credential: Self.publishable, routePath: "/v1/elements/sessions")
        let decoded = try decode(
            ElementsSessionService.Parameters.self,
            "type=deferred_intent&deferred_intent[mode]=setup&mobile_session_id=u&deferred_intent[currency]=usd&next_release[x]=1",
            policy
        )
        #expect(decoded.params.type == .deferredIntent)
        #expect(decoded.ignored == ["deferred_intent[currency]", "mobile_session_id", "next_release"])
        // What the endpoint reads is checked as strictly as ever.
        let error = refusal(ElementsSessionService.Parameters.self, "type=nonsense&mobile_session_id=u", policy)
        #expect(error?.param == "type")
    }

    @Test(arguments: [
        ("muid", "muid"),
        ("a[3][b]", "a[][b]"),
        ("external_payment_methods[0]", "external_payment_methods[]"),
        ("deferred_intent[currency]", "deferred_intent[currency]"),
        ("a[b2]", "a[b2]"),
    ])
    func ignoredNamesAreCountedPerParameterNotPerPosition(name: String, folded: String) {
        #expect(IgnoredParameters.folded(name) == folded)
    }

    @Test func ignoredNamesAreBoundedInNumber() {
        let registry = PrometheusCollectorRegistry()
        let ignored = IgnoredParameters(registry: registry)
        let names = (0..<(IgnoredParameters.maximumNames + 50)).map { "p\($0)" }
        ignored.record(names, logger: .init(label: "test"))
        let series = registry.emitToString().split(separator: "\n").filter { $0.hasPrefix(IgnoredParameters.total + "{") }
        #expect(series.count == IgnoredParameters.maximumNames + 1)
        #expect(series.contains { $0.contains(#"parameter="other"} 50"#) })
    }
}
