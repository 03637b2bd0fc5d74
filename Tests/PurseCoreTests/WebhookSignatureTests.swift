import PurseCore
import Testing

@Suite("Webhook signatures")
struct WebhookSignatureTests {
    /// The expected MAC is Python's `hmac.new(b"whsec_test_secret", b'1700000000.{"id":"evt_1"}',
    /// hashlib.sha256).hexdigest()`, the computation stripe-python's verifier makes.
    @Test func matchesStripesScheme() {
        let header = WebhookSignature.header(
            secret: "whsec_test_secret", timestamp: 1_700_000_000, body: Array(#"{"id":"evt_1"}"#.utf8)
        )
        #expect(header == "t=1700000000,v1=248a374f50f943a28b0f6ab50faf9a7e7e29b710fa26df9fb1618b9bf8ea9c9a")
    }

    @Test func dependsOnEveryInput() {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let base = WebhookSignature.header(secret: "whsec_a", timestamp: 1, body: body)
        #expect(base != WebhookSignature.header(secret: "whsec_b", timestamp: 1, body: body))
        #expect(base.dropFirst(4) != WebhookSignature.header(secret: "whsec_a", timestamp: 2, body: body).dropFirst(4))
        #expect(base != WebhookSignature.header(secret: "whsec_a", timestamp: 1, body: body + [0x20]))
    }
}
