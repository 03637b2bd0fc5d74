/// The two ways an adapter gets its customer credential.
enum AdapterMode: String, CaseIterable, Sendable, CustomStringConvertible {
    case ephemeralKey = "ephemeral key"
    case customerSession = "customer session"

    var description: String { rawValue }
}
