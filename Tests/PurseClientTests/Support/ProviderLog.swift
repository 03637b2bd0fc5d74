/// What the providers handed out, so tests can count calls and expire what was minted.
actor ProviderLog {
    private(set) var ephemeralKeyIDs: [String] = []
    private(set) var customerSessionIDs: [String] = []
    private(set) var setupIntents = 0

    var credentialCalls: Int { ephemeralKeyIDs.count + customerSessionIDs.count }

    func mintedEphemeralKey(_ id: String) { ephemeralKeyIDs.append(id) }
    func mintedCustomerSession(_ id: String) { customerSessionIDs.append(id) }
    func mintedSetupIntent() { setupIntents += 1 }
}
