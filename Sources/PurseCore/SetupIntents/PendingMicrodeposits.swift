/// The microdeposits a bank account's setup waits for: when they were sent and arrive, and how
/// often the customer has read them wrong.
public struct PendingMicrodeposits: Codable, Sendable, Equatable {
    public var sentAt: Int
    public var arrivalDate: Int
    public var failedAttempts: Int

    /// Stripe's limit: the tenth wrong reading ends the verification.
    public static let maximumFailedAttempts = 10

    /// How long the customer has to verify them, as Stripe's: then the setup fails.
    public static let verificationDays = 10

    /// Sent now; Stripe's arrive in one to two business days.
    public static func sent(now: Int) -> PendingMicrodeposits {
        PendingMicrodeposits(sentAt: now, arrivalDate: now + 2 * 86_400, failedAttempts: 0)
    }

    enum CodingKeys: String, CodingKey {
        case sentAt = "sent_at"
        case arrivalDate = "arrival_date"
        case failedAttempts = "failed_attempts"
    }
}
