/// The figures of one run, written as JSON for the benchmark script.
struct LoadReport: Encodable {
    var workload: String
    var connections: Int
    var seconds: Double
    var operations: Int
    var operationsPerSecond: Double
    var p50Ms: Double
    var p90Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var errors: Int
    var errorSamples: [String]
    /// Captured values of one connection's last operation (with an operation limit).
    var captures: [String: String]

    init(workload: String, connections: Int, seconds: Double, results: [ConnectionResult]) {
        let latencies = results.flatMap(\.latencies).sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let index = min(latencies.count - 1, Int((Double(latencies.count) * fraction).rounded(.up)) - 1)
            return Double(latencies[max(0, index)]) / 1000
        }
        self.workload = workload
        self.connections = connections
        self.seconds = seconds
        operations = latencies.count
        operationsPerSecond = seconds > 0 ? Double(latencies.count) / seconds : 0
        p50Ms = percentile(0.50)
        p90Ms = percentile(0.90)
        p99Ms = percentile(0.99)
        maxMs = Double(latencies.last ?? 0) / 1000
        errors = results.reduce(0) { $0 + $1.errors }
        errorSamples = Array(results.flatMap(\.errorSamples).prefix(5))
        captures = results.first?.lastCaptures ?? [:]
    }

    enum CodingKeys: String, CodingKey {
        case workload, connections, seconds, operations
        case operationsPerSecond = "operations_per_second"
        case p50Ms = "p50_ms"
        case p90Ms = "p90_ms"
        case p99Ms = "p99_ms"
        case maxMs = "max_ms"
        case errors
        case errorSamples = "error_samples"
        case captures
    }
}
