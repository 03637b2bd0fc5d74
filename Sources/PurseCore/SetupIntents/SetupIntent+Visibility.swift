public import PurseModels

extension SetupIntent {
    /// The object as `caller` may see it: everything for the secret key, Stripe's documented
    /// subset for a publishable key with the client secret. Of `payment_method_options` a client
    /// sees Stripe's client shape: how each type is verified, not the merchant's other settings
    /// (stripe-ios's PaymentSheet offers a bank account only for a verification it can run).
    public func json(for caller: Credential?) throws -> JSONValue {
        let full = try JSONValueEncoder().encode(self)
        guard caller?.kind == .publishable, case .object(let object) = full else { return full }
        var visible = JSONObject(object.entries.filter { Self.publishableFields.contains($0.key) }.map { ($0.key, $0.value) })
        if case .object(let options) = paymentMethodOptions {  // Stripe's client shape of each entry
            visible["payment_method_options"] = .object(
                JSONObject(
                    options.entries.map { type, entry in
                        (type, .object(JSONObject(entry["verification_method"].map { [("verification_method", $0)] } ?? [])))
                    })
            )
        }
        return .object(visible)
    }
}
