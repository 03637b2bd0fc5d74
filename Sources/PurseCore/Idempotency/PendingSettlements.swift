import NIOConcurrencyHelpers

/// Keys whose answer is decided but could not be written while PostgreSQL was unreachable
/// (``IdempotencyService/settle(_:_:)``), by account and key. Whoever takes a settlement runs it:
/// the background retry, or a retry of the request arriving first, which must not see the key
/// still reserved once the database is back.
final class PendingSettlements: Sendable {
    typealias Settlement = @Sendable (IdempotencyService) async throws -> Void

    private let settlements = NIOLockedValueBox<[String: Settlement]>([:])

    static func id(of request: IdempotentRequest) -> String {
        request.accountID + "\u{0}" + request.caller + "\u{0}" + request.key
    }

    func put(_ settlement: @escaping Settlement, for id: String) {
        settlements.withLockedValue { $0[id] = settlement }
    }

    func take(_ id: String) -> Settlement? {
        settlements.withLockedValue { $0.removeValue(forKey: id) }
    }
}
