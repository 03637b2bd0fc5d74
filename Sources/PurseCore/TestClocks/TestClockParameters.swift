/// `POST /v1/test_helpers/test_clocks`.
public struct TestClockCreateParameters: Decodable, Sendable {
    public var frozenTime: Int
    public var name: String?
    /// An existing customer, on no clock yet, to put on the new clock for good (Stripe's API
    /// since 2026-05-27.dahlia).
    public var customer: String?

    public init(frozenTime: Int, name: String? = nil, customer: String? = nil) {
        self.frozenTime = frozenTime
        self.name = name
        self.customer = customer
    }

    enum CodingKeys: String, CodingKey {
        case frozenTime = "frozen_time"
        case name
        case customer
    }
}

/// `POST /v1/test_helpers/test_clocks/{id}/advance`.
public struct TestClockAdvanceParameters: Decodable, Sendable {
    public var frozenTime: Int

    enum CodingKeys: String, CodingKey {
        case frozenTime = "frozen_time"
    }
}
