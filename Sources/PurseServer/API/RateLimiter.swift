import NIOConcurrencyHelpers

/// Request rate limits (spec §5: configurable, off by default): a token bucket per key (the
/// secret, publishable or ephemeral key, or customer session, the request presented; or, for
/// failed authentications, the client's address), refilled at `rate` requests per second up to
/// `burst`. A request over the limit is answered 429 `rate_limit` with `Retry-After`, before its
/// body is read or anything runs.
///
/// Each server counts on its own: behind a load balancer with n servers a key gets up to n times
/// the rate. Buckets live in memory, so a restart forgives everyone.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let limit: ServerConfiguration.RateLimit
    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])
    /// Past this many keys, buckets full again are dropped (they would admit the next request
    /// anyway), so the table cannot grow without bound.
    private let maximumKeys = 100_000

    init(_ limit: ServerConfiguration.RateLimit) {
        self.limit = limit
    }

    /// Takes one request's token from `key`'s bucket; when there is none, how long until there
    /// will be.
    func admit(_ key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        check(key, taking: true, now: now)
    }

    /// How long until `key`'s bucket has a token again, or nil when it has one now; takes none.
    func wait(_ key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        check(key, taking: false, now: now)
    }

    private func check(_ key: String, taking: Bool, now: ContinuousClock.Instant) -> Duration? {
        buckets.withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(Double(limit.burst), bucket.tokens + seconds * limit.rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return .seconds((1 - bucket.tokens) / limit.rate)
            }
            guard taking else { return nil }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= maximumKeys { dropFullBuckets(&buckets, now: now) }
            buckets[key] = bucket
            return nil
        }
    }

    private func dropFullBuckets(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let refill = Duration.seconds(Double(limit.burst) / limit.rate)
        buckets = buckets.filter { now - $0.value.updated < refill }
        // Every key active within one refill time: start over rather than grow.
        if buckets.count >= maximumKeys { buckets.removeAll() }
    }
}
