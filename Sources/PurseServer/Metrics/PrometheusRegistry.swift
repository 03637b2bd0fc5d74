public import Metrics
import Synchronization

/// A swift-metrics backend that keeps its instruments in memory and renders them in
/// Prometheus' text format.
///
/// Each ``PurseApplication`` has its own registry and passes it as the `factory:` of the
/// instruments it makes, so servers sharing a process (the tests) never mix their figures and
/// nothing depends on `MetricsSystem.bootstrap`.
///
/// | swift-metrics | Prometheus |
/// |---|---|
/// | `Counter`, `FloatingPointCounter` | counter |
/// | `Gauge`, `Meter`, `Recorder(aggregate: false)` | gauge |
/// | `Recorder` | histogram over ``describe(_:help:buckets:)``'s buckets, else ``defaultBuckets`` |
/// | `Timer` | histogram in seconds over ``defaultDurationBuckets`` (or those described) |
///
/// Recording is lock-free (atomics, relaxed); the registry's lock is taken only to make an
/// instrument and to list them when rendering. Asking twice for the same name and dimensions
/// gives the same instrument. An instrument whose name is already used by another kind is kept
/// out of the output (Prometheus forbids mixing types in a family) rather than corrupting it.
public final class PrometheusRegistry: MetricsFactory, Sendable {
    /// Prometheus' own default buckets.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Seconds, from half a millisecond (a request that touches the database takes about one
    /// here) to ten.
    public static let defaultDurationBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    private struct Description {
        var help: String
        var buckets: [Double]?
    }

    private struct Family {
        let kind: PrometheusText.Kind
        /// Rendered labels → instrument, in the order made.
        var series: [(labels: String, instrument: any PrometheusInstrument)]
        var index: [String: Int]
    }

    private struct State {
        var families: [String: Family] = [:]
        var descriptions: [String: Description] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Sets a metric's `# HELP` text and, for a histogram, its bucket upper bounds. Call it before
    /// the first instrument of that name is made.
    public func describe(_ name: String, help: String, buckets: [Double]? = nil) {
        let description = Description(help: help, buckets: buckets.map { Array(Set($0.filter(\.isFinite))).sorted() })
        state.withLock { $0.descriptions[PrometheusText.sanitizedName(name)] = description }
    }

    /// Writes every instrument, families by name and series in the order they were made.
    func render(into text: inout PrometheusText) {
        let snapshot = state.withLock { state in
            state.families.map { name, family in
                (name: name, kind: family.kind, help: state.descriptions[name]?.help ?? name, series: family.series)
            }
        }
        for family in snapshot.sorted(by: { $0.name < $1.name }) {
            text.family(family.name, family.kind, help: family.help)
            for series in family.series {
                series.instrument.write(name: family.name, labels: series.labels, into: &text)
            }
        }
    }

    // MARK: - MetricsFactory

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        instrument(label, dimensions, kind: .counter) { _ in PrometheusCounter() }
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        instrument(label, dimensions, kind: .counter) { _ in PrometheusFloatingPointCounter() }
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        instrument(label, dimensions, kind: .gauge) { _ in PrometheusGauge() }
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        if !aggregate {
            return instrument(label, dimensions, kind: .gauge) { _ in PrometheusGauge() } as PrometheusGauge
        }
        return instrument(label, dimensions, kind: .histogram) { buckets in
            PrometheusHistogram(buckets: buckets ?? Self.defaultBuckets)
        } as PrometheusHistogram
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        instrument(label, dimensions, kind: .histogram) { buckets in
            PrometheusHistogram(buckets: buckets ?? Self.defaultDurationBuckets)
        }
    }

    public func destroyCounter(_ handler: any CounterHandler) { remove(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { remove(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { remove(handler) }
    public func destroyRecorder(_ handler: any RecorderHandler) { remove(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { remove(handler) }

    // MARK: - Bookkeeping

    /// The instrument registered under `label` and `dimensions`, made by `make` (given the
    /// described buckets) if there is none yet.
    private func instrument<Instrument: PrometheusInstrument>(
        _ label: String,
        _ dimensions: [(String, String)],
        kind: PrometheusText.Kind,
        make: ([Double]?) -> Instrument
    ) -> Instrument {
        let name = PrometheusText.sanitizedName(label)
        let labels = PrometheusText.labels(dimensions.map { (PrometheusText.sanitizedName($0.0, allowColon: false), $0.1) })
        return state.withLock { state in
            let buckets = state.descriptions[name]?.buckets
            guard var family = state.families[name] else {
                let made = make(buckets)
                state.families[name] = Family(kind: kind, series: [(labels, made)], index: [labels: 0])
                return made
            }
            // A clash of kinds, or of labels between kinds of one family, stays out of the output.
            guard family.kind == kind else { return make(buckets) }
            if let position = family.index[labels] {
                return family.series[position].instrument as? Instrument ?? make(buckets)
            }
            let made = make(buckets)
            family.index[labels] = family.series.count
            family.series.append((labels, made))
            state.families[name] = family
            return made
        }
    }

    private func remove(_ handler: AnyObject) {
        state.withLock { state in
            for (name, family) in state.families {
                guard let position = family.series.firstIndex(where: { $0.instrument === handler }) else { continue }
                var family = family
                family.series.remove(at: position)
                family.index = Dictionary(uniqueKeysWithValues: family.series.enumerated().map { ($1.labels, $0) })
                state.families[name] = family.series.isEmpty ? nil : family
                return
            }
        }
    }
}

// MARK: - Instruments

/// An instrument that can write its samples.
protocol PrometheusInstrument: AnyObject, Sendable {
    func write(name: String, labels: String, into text: inout PrometheusText)
}

/// A counter of whole numbers.
final class PrometheusCounter: CounterHandler, PrometheusInstrument {
    private let value = Atomic<Int64>(0)

    func increment(by amount: Int64) {
        value.wrappingAdd(amount, ordering: .relaxed)
    }

    func reset() {
        value.store(0, ordering: .relaxed)
    }

    func write(name: String, labels: String, into text: inout PrometheusText) {
        text.sample(name, labels: labels, Int(value.load(ordering: .relaxed)))
    }
}

/// A counter of fractional amounts.
final class PrometheusFloatingPointCounter: FloatingPointCounterHandler, PrometheusInstrument {
    private let value = AtomicDouble()

    func increment(by amount: Double) {
        guard amount.isFinite, amount > 0 else { return }
        value.add(amount)
    }

    func reset() {
        value.store(0)
    }

    func write(name: String, labels: String, into text: inout PrometheusText) {
        text.sample(name, labels: labels, value.load())
    }
}

/// A value that goes up and down.
final class PrometheusGauge: RecorderHandler, MeterHandler, PrometheusInstrument {
    private let value = AtomicDouble()

    func record(_ value: Int64) { self.value.store(Double(value)) }
    func record(_ value: Double) { self.value.store(value) }
    func set(_ value: Int64) { self.value.store(Double(value)) }
    func set(_ value: Double) { self.value.store(value) }
    func increment(by amount: Double) { value.add(amount) }
    func decrement(by amount: Double) { value.add(-amount) }

    func write(name: String, labels: String, into text: inout PrometheusText) {
        text.sample(name, labels: labels, value.load())
    }
}

/// A histogram with fixed buckets. A recording is a bucket search over a dozen bounds and two
/// relaxed atomic additions; the count is the buckets' total, so `_count` always equals the
/// `+Inf` bucket even while recordings race with a scrape.
final class PrometheusHistogram: RecorderHandler, TimerHandler, PrometheusInstrument {
    /// Upper bounds, ascending, without `+Inf`.
    let bounds: [Double]
    /// The same bounds in nanoseconds, for timers.
    private let nanosecondBounds: [Int64]
    /// One count per bound, then the `+Inf` bucket's; not cumulative.
    private let counts: AtomicCounts
    /// What timers recorded, exactly.
    private let nanosecondSum = Atomic<Int64>(0)
    /// What recorders recorded.
    private let sum = AtomicDouble()

    init(buckets: [Double]) {
        bounds = buckets
        nanosecondBounds = buckets.map { $0 * 1e9 < Double(Int64.max) ? Int64($0 * 1e9) : Int64.max }
        counts = AtomicCounts(count: buckets.count + 1)
    }

    func recordNanoseconds(_ duration: Int64) {
        var bucket = 0
        while bucket < nanosecondBounds.count, duration > nanosecondBounds[bucket] { bucket += 1 }
        counts.increment(bucket)
        nanosecondSum.wrappingAdd(duration, ordering: .relaxed)
    }

    func record(_ value: Int64) {
        record(Double(value))
    }

    func record(_ value: Double) {
        guard !value.isNaN else { return }
        var bucket = 0
        while bucket < bounds.count, value > bounds[bucket] { bucket += 1 }
        counts.increment(bucket)
        sum.add(value)
    }

    func write(name: String, labels: String, into text: inout PrometheusText) {
        // `le` goes last inside the braces the series already has.
        let prefix = labels.isEmpty ? "{" : String(labels.dropLast()) + ","
        var cumulative = 0
        for (bucket, bound) in bounds.enumerated() {
            cumulative += counts.load(bucket)
            text.sample(name + "_bucket", labels: prefix + "le=\"\(PrometheusText.format(bound))\"}", cumulative)
        }
        cumulative += counts.load(bounds.count)
        text.sample(name + "_bucket", labels: prefix + "le=\"+Inf\"}", cumulative)
        text.sample(name + "_sum", labels: labels, Double(nanosecondSum.load(ordering: .relaxed)) / 1e9 + sum.load())
        text.sample(name + "_count", labels: labels, cumulative)
    }
}

/// A fixed number of atomic counters in one allocation (`Atomic` cannot live in an `Array`).
///
/// `@unchecked Sendable`: the buffer is allocated and initialised once in `init`, never
/// reallocated, freed only in `deinit`, and every access after `init` goes through an atomic
/// operation.
final class AtomicCounts: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    private let count: Int

    init(count: Int) {
        self.count = count
        storage = .allocate(capacity: count)
        for index in 0..<count { (storage + index).initialize(to: Atomic(0)) }
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    func increment(_ index: Int) {
        precondition(index >= 0 && index < count)
        storage[index].wrappingAdd(1, ordering: .relaxed)
    }

    func load(_ index: Int) -> Int {
        storage[index].load(ordering: .relaxed)
    }
}

/// A `Double` updated atomically (its bits in an `Atomic<UInt64>`; additions compare and swap).
struct AtomicDouble: ~Copyable, Sendable {
    private let bits = Atomic<UInt64>(0.0.bitPattern)

    func load() -> Double {
        Double(bitPattern: bits.load(ordering: .relaxed))
    }

    func store(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    func add(_ amount: Double) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let (exchanged, original) = bits.compareExchange(
                expected: current, desired: (Double(bitPattern: current) + amount).bitPattern, ordering: .relaxed
            )
            if exchanged { return }
            current = original
        }
    }
}
