/// `POST /v1/test_helpers/test_clocks`.
public struct TestClockCreateParameters: Decodable, Sendable {
    public var frozenTime: Int
    public var name: String?

    enum CodingKeys: String, CodingKey {
        case frozenTime = "frozen_time"
        case name
    }
}

/// `POST /v1/test_helpers/test_clocks/{id}/advance`.
public struct TestClockAdvanceParameters: Decodable, Sendable {
    public var frozenTime: Int

    enum CodingKeys: String, CodingKey {
        case frozenTime = "frozen_time"
    }
}
