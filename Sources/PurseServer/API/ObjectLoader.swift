import PurseCore
import PurseModels

/// Loads objects by id for `expand`, as the caller is allowed to see them.
struct ObjectLoader: Sendable {
    let customers: CustomerService
    let paymentMethods: PaymentMethodService
    let testClocks: TestClockService

    func load(_ type: ObjectType, id: String, caller: Credential) async throws -> JSONValue? {
        let encoder = JSONValueEncoder()
        switch type {
        case .customer:
            guard case .active(let customer) = try? await customers.retrieve(id, by: caller) else { return nil }
            return try encoder.encode(customer)
        case .paymentMethod:
            guard let method = try? await paymentMethods.retrieve(id, by: caller) else { return nil }
            return try encoder.encode(method)
        case .testClock:
            // Test clocks are the secret key's: a customer's own key sees the id only.
            guard caller.isSecret, let clock = try? await testClocks.retrieve(id, by: caller) else { return nil }
            return try encoder.encode(clock)
        default:
            return nil
        }
    }
}
