public import PurseModels

extension SetupIntent {
    /// The object as `caller` may see it: everything for the secret key, Stripe's documented
    /// subset for a publishable key with the client secret.
    public func json(for caller: Credential?) throws -> JSONValue {
        let full = try JSONValueEncoder().encode(self)
        guard caller?.kind == .publishable, case .object(let object) = full else { return full }
        return .object(JSONObject(object.entries.filter { Self.publishableFields.contains($0.key) }.map { ($0.key, $0.value) }))
    }
}
