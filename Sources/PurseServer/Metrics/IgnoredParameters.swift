import Logging
import Metrics
import NIOConcurrencyHelpers
import Prometheus
import PurseParameters

/// The parameters the ``ParameterPolicy`` let through unread, counted by name
/// (`purse_ignored_parameters_total{parameter}`) and logged once per name at debug, so an
/// operator sees what the SDKs send that Purse does not act on.
///
/// Names come from clients, so the number of series is bounded: array positions are folded
/// (`a[3]` is counted as `a[]`), and past ``maximumNames`` distinct names the rest share the
/// label `other`.
final class IgnoredParameters: Sendable {
    static let total = "purse_ignored_parameters_total"
    static let maximumNames = 200
    static let overflowName = "other"

    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            total,
            help: "Parameters accepted and ignored under the parameter policy (what Stripe's client SDKs send that Purse does not act on), by name."
        )
    }

    private let registry: PrometheusCollectorRegistry
    private let counters: NIOLockedValueBox<[String: Metrics.Counter]>

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.counters = NIOLockedValueBox([:])
    }

    func record(_ names: [String], logger: Logger) {
        for name in names {
            let (counter, isNew) = counter(for: Self.folded(name))
            counter.increment()
            if isNew { logger.debug("ignoring a parameter the client SDKs send", metadata: ["parameter": "\(name)"]) }
        }
    }

    private func counter(for name: String) -> (Metrics.Counter, isNew: Bool) {
        counters.withLockedValue { counters in
            if let counter = counters[name] { return (counter, false) }
            if counters.count >= Self.maximumNames, let overflow = counters[Self.overflowName] { return (overflow, false) }
            let label = counters.count >= Self.maximumNames ? Self.overflowName : name
            let dimensions = [("parameter", label)]
            let counter = Metrics.Counter(
                label: Self.total, dimensions: dimensions,
                handler: registry.makeCounter(descriptor: Self.descriptor, labels: dimensions),
                factory: PrometheusMetricsFactory(registry: registry)
            )
            counters[label] = counter
            return (counter, true)
        }
    }

    /// `a[3][b]` → `a[][b]`: one series per parameter, not per array position.
    static func folded(_ name: String) -> String {
        guard name.contains("[") else { return name }
        var result = ""
        var segment = ""
        var inBrackets = false
        for character in name {
            switch character {
            case "[":
                result.append(segment)
                segment = ""
                inBrackets = true
                result.append("[")
            case "]" where inBrackets:
                if !segment.allSatisfy(\.isNumber) || segment.isEmpty { result.append(segment) }
                segment = ""
                inBrackets = false
                result.append("]")
            default:
                segment.append(character)
            }
        }
        result.append(segment)
        return result
    }
}
