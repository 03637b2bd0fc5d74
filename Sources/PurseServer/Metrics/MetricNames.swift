import Prometheus

extension MetricNameDescriptor {
    /// A metric named in full, with the `# HELP` text `/metrics` shows for it.
    init(_ name: String, help: String) {
        self.init(metricName: name, unitName: "", helpText: help)
    }
}
