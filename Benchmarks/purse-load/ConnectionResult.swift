/// What one connection measured.
struct ConnectionResult: Sendable {
    /// Microseconds per measured operation.
    var latencies: [UInt32] = []
    /// Operations that got a response outside 2xx, or whose connection failed.
    var errors = 0
    /// The first few failures, to show what went wrong.
    var errorSamples: [String] = []
    /// Captured values of the last operation (useful with an operation limit).
    var lastCaptures: [String: String] = [:]

    mutating func recordError(_ sample: String) {
        errors += 1
        if errorSamples.count < 3 { errorSamples.append(sample) }
    }
}
