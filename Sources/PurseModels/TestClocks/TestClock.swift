/// `test_helpers.test_clock`: a frozen time that customers created on it live by, moved only
/// forward, by `advance`. Stripe's object, field for field.
public struct TestClock: Codable, Sendable, Hashable {
    public var id: String
    public var object: String = "test_helpers.test_clock"
    public var created: Int
    /// When Purse deletes the clock, and its customers with it: 30 days after its creation.
    public var deletesAfter: Int
    public var frozenTime: Int
    public var livemode: Bool = false
    public var name: String?
    public var status: Status
    public var statusDetails: StatusDetails

    public init(id: String, created: Int, deletesAfter: Int, frozenTime: Int, name: String?, advancingTo: Int?) {
        self.id = id
        self.created = created
        self.deletesAfter = deletesAfter
        self.frozenTime = frozenTime
        self.name = name
        self.status = advancingTo == nil ? .ready : .advancing
        self.statusDetails = StatusDetails(advancing: advancingTo.map { Advancing(targetFrozenTime: $0) })
    }

    /// The clock at `frozenTime`, advancing to `target`, or ready when `target` is nil.
    public func at(_ frozenTime: Int, advancingTo target: Int?) -> TestClock {
        TestClock(id: id, created: created, deletesAfter: deletesAfter, frozenTime: frozenTime, name: name, advancingTo: target)
    }

    public enum Status: String, Codable, Sendable, Hashable {
        case advancing
        /// Stripe's state for an advance that failed; Purse's advances are retried until they
        /// finish, so none ends here.
        case internalFailure = "internal_failure"
        case ready
    }

    /// `status_details`: the time an advance is moving to, while it is.
    public struct StatusDetails: Codable, Sendable, Hashable {
        public var advancing: Advancing?

        public init(advancing: Advancing?) {
            self.advancing = advancing
        }

        /// Present only while advancing, as Stripe shows it (an empty object otherwise).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let advancing { try container.encode(advancing, forKey: .advancing) }
        }

        enum CodingKeys: String, CodingKey {
            case advancing
        }
    }

    public struct Advancing: Codable, Sendable, Hashable {
        public var targetFrozenTime: Int

        public init(targetFrozenTime: Int) {
            self.targetFrozenTime = targetFrozenTime
        }

        enum CodingKeys: String, CodingKey {
            case targetFrozenTime = "target_frozen_time"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, object, created
        case deletesAfter = "deletes_after"
        case frozenTime = "frozen_time"
        case livemode, name, status
        case statusDetails = "status_details"
    }
}
