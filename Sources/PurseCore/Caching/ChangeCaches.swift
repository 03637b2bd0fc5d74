/// The server's in-memory caches of rows PostgreSQL announces changes to, by topic (the payload
/// of `NOTIFY purse_changes`, migrations 0012, 0014 and 0026 to 0028), and the signals of changes
/// it acts on.
public final class ChangeCaches: Sendable {
    /// The NOTIFY channel.
    public static let channel = "purse_changes"

    public static let credentialsTopic = "credentials"

    /// Credentials by the SHA-256 of the key presented.
    public let credentials = ChangeCache<[UInt8], CachedCredential>(topic: credentialsTopic)

    /// Keys found to be unknown, by SHA-256, with when to look again: a client repeating a key
    /// that is not one costs no query until then. Emptied with the credentials (any change to a
    /// key's row is announced); a new key is a fresh random secret no one presented before it existed.
    let unknownKeys = ChangeCache<[UInt8], ContinuousClock.Instant>(topic: credentialsTopic, capacity: 10_000)

    /// Live customer sessions by account and client secret, for the elements session. Emptied
    /// with the credentials: the same triggers announce any change to a session's row and a
    /// deleted customer.
    let customerSessions = ChangeCache<CustomerSessionService.SecretKey, CustomerSessionService.LiveSession>(topic: credentialsTopic)

    public static let sheetSettingsTopic = "sheet_settings"

    /// Sheet settings by ``SheetSettingsService/cacheKey(account:id:)`` (the id, or `default`).
    public let sheetSettings = ChangeCache<String, SheetSettingsInForce>(topic: sheetSettingsTopic)

    public static let testClockAdvancesTopic = "test_clock_advances"

    /// Raised when a test clock starts advancing, once that transaction commits: the advancer
    /// finishes it.
    public let testClockAdvances = ChangeSignal(topic: testClockAdvancesTopic)

    public init() {}

    /// Empties the caches `topic` names, or raises its signal; an unknown topic empties every
    /// cache (a newer server's topic).
    public func invalidate(topic: String) {
        let named = all.filter { $0.topic == topic }
        let caches = all.filter { !($0 is ChangeSignal) }
        for subscriber in named.isEmpty ? caches : named { subscriber.changed() }
    }

    /// Whether the caches serve from memory: the change feed is listening. They start and stop
    /// together, so the credentials' answer is everyone's.
    public var isServing: Bool { credentials.isServing }

    /// Starts or stops serving from memory (stopped while changes could be missed).
    public func setServing(_ serving: Bool) {
        for cache in all { cache.setServing(serving) }
    }

    private var all: [any ChangeSubscriber] { [credentials, unknownKeys, customerSessions, sheetSettings, testClockAdvances] }
}

/// What ``ChangeCaches`` needs of each cache or signal, whatever it holds.
protocol ChangeSubscriber: Sendable {
    var topic: String { get }
    /// A change of its topic was announced: a cache empties, a signal is raised.
    func changed()
    func setServing(_ serving: Bool)
}

extension ChangeCache: ChangeSubscriber {
    func changed() { invalidate() }
}
