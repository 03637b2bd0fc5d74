import Foundation
import PurseClient
import TestSupport
import Testing

/// Every failure reaches the app as its typed error with the response's request id: from a
/// live server (401, 402, 400 with its param, 403, 404), from a canned response for what the
/// server does not send today (429, 500, an unreadable success), and with no server at all.
// Serialized: each test starts its own server and database, and the whole test run shares one
// PostgreSQL with a connection limit.
@Suite("Typed errors", .serialized)
struct ErrorMappingTests {
    @Test func liveRefusalsMapToTheirKinds() async throws {
        try await LiveServer.with { server in
            var shop = try await Shop.open(on: server)
            let adapter = shop.adapter(.ephemeralKey)
            let visa = try await shop.attach("pm_card_visa")

            let declined = try await #require(throws: PurseClientError.self) {
                try await adapter.attachPaymentMethod("pm_card_chargeDeclinedInsufficientFunds")
            }
            #expect(declined.kind == .cardDeclined(code: "card_declined"))
            #expect(declined.declineCode == "insufficient_funds")
            #expect(declined.type == "card_error")

            let badExpiry = try await #require(throws: PurseClientError.self) {
                try await adapter.updatePaymentMethod(
                    paymentMethodId: visa, paymentMethodUpdateParams: PaymentMethodUpdateParams(card: .init(expMonth: 13))
                )
            }
            #expect(badExpiry.kind == .cardDeclined(code: "invalid_expiry_month"))
            #expect(badExpiry.httpStatus == 402)

            let badParam = try await #require(throws: PurseClientError.self) {
                try await adapter.updatePaymentMethod(
                    paymentMethodId: visa, paymentMethodUpdateParams: PaymentMethodUpdateParams(allowRedisplay: "sometimes")
                )
            }
            #expect(badParam.kind == .invalidRequest(param: "allow_redisplay", message: badParam.message))
            #expect(badParam.httpStatus == 400)
            #expect(badParam.requestID?.hasPrefix("req_") == true)

            let missing = try await #require(throws: PurseClientError.self) {
                try await adapter.detachPaymentMethod(paymentMethodId: "pm_doesNotExist")
            }
            #expect(missing.httpStatus == 404)
            #expect(missing.code == "resource_missing")
            #expect(missing.kind.isInvalidRequest)
            #expect(missing.message.contains("pm_doesNotExist"))

            // A session whose merchant disabled removal: 403, refused before anything changes.
            shop.sessionFeatures = ""
            let locked = shop.adapter(.customerSession)
            let forbidden = try await #require(throws: PurseClientError.self) {
                try await locked.detachPaymentMethod(paymentMethodId: visa)
            }
            #expect(forbidden.httpStatus == 403)
            #expect(forbidden.kind.isInvalidRequest)
            #expect(forbidden.code == "customer_session_remove_disabled")
            #expect(try await shop.paymentMethod(visa).json["customer"]?.stringValue == shop.customer)
        }
    }

    @Test(arguments: [
        (
            "429 Too Many Requests",
            #"{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests hit the API too quickly."}}"#,
            PurseClientError.Kind.rateLimited
        ),
        ("500 Internal Server Error", #"{"error":{"type":"api_error","message":"An unexpected error occurred."}}"#, .server),
        ("503 Service Unavailable", "not json at all", .server),
        ("200 OK", #"{"object":"something else"}"#, .server),
    ])
    func cannedResponsesMapToTheirKinds(status: String, body: String, kind: PurseClientError.Kind) async throws {
        let canned = try CannedHTTPServer(status: status, headers: ["Request-Id": "req_canned123", "Retry-After": "7"], body: body)
        defer { canned.stop() }
        let adapter = PurseCustomerAdapter(
            customerEphemeralKeyProvider: { CustomerEphemeralKey(customerId: "cus_canned", ephemeralKeySecret: "ek_test_canned") },
            publishableKey: "pk_test_canned", baseURL: URL(string: "http://127.0.0.1:\(canned.port)")!
        )
        let error = try await #require(throws: PurseClientError.self) {
            try await adapter.updatePaymentMethod(
                paymentMethodId: "pm_1", paymentMethodUpdateParams: PaymentMethodUpdateParams(allowRedisplay: "always"))
        }
        #expect(error.kind == kind)
        #expect(error.requestID == "req_canned123")
        #expect(error.httpStatus == Int(status.prefix(3)))
        if kind == .rateLimited {
            #expect(error.retryAfter == 7)
            #expect(error.code == "rate_limit")
            #expect(error.message == "Too many requests hit the API too quickly.")
        }
    }

    @Test func aClosedPortIsATransportError() async throws {
        let refusing = try RefusingPort()
        defer { refusing.release() }
        let adapter = PurseCustomerAdapter(
            customerEphemeralKeyProvider: { CustomerEphemeralKey(customerId: "cus_none", ephemeralKeySecret: "ek_test_none") },
            publishableKey: "pk_test_none", baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!
        )
        let error = try await #require(throws: PurseClientError.self) { try await adapter.fetchPaymentMethods() }
        #expect(error.kind == .transport)
        #expect(error.isTransport)
        #expect(error.requestID == nil && error.httpStatus == nil)
    }

    @Test(arguments: [
        (400, #"{"error":{"type":"invalid_request_error","code":"rate_limit","message":"slow down"}}"#, PurseClientError.Kind.rateLimited),
        (401, #"{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: ek_test_****abcd"}}"#, .unauthenticated),
        (
            402, #"{"error":{"type":"card_error","code":"expired_card","decline_code":"expired_card","message":"Your card has expired."}}"#,
            .cardDeclined(code: "expired_card")
        ),
        (
            400,
            #"{"error":{"type":"invalid_request_error","code":"parameter_missing","param":"customer","message":"Missing required param: customer."}}"#,
            .invalidRequest(param: "customer", message: "Missing required param: customer.")
        ),
        (
            409, #"{"error":{"type":"idempotency_error","code":"idempotency_key_in_use","message":"in flight"}}"#,
            .invalidRequest(param: nil, message: "in flight")
        ),
        (502, "<html>bad gateway</html>", .server),
    ])
    func theEnvelopeAndStatusDecideTheKind(status: Int, body: String, kind: PurseClientError.Kind) {
        let error = PurseClientError.fromResponse(status: status, body: Data(body.utf8)) { $0 == "Request-Id" ? "req_synthetic" : nil }
        #expect(error.kind == kind)
        #expect(error.requestID == "req_synthetic")
        #expect(error.httpStatus == status)
        #expect(error.description.contains("req_synthetic"))
    }
}

extension PurseClientError.Kind {
    var isInvalidRequest: Bool {
        if case .invalidRequest = self { return true }
        return false
    }
}
