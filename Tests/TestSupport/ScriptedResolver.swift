import NIOConcurrencyHelpers
public import PurseCore

/// A resolver that answers from a script, and records what it was asked: each scripted name
/// answers its answers in turn, then its last one again (a name that rebinds: a public address
/// first, loopback after). Names are matched without case or a trailing dot. An address in
/// standard text answers itself; any other name does not resolve.
public final class ScriptedResolver: HostResolver, Sendable {
    /// One answer to a lookup.
    public enum Answer: Sendable {
        case addresses([String])
        /// The lookup never answers (a resolver that does not respond); it ends when cancelled.
        case hang
    }

    private let state: NIOLockedValueBox<(script: [String: [Answer]], asked: [String], abandoned: [String])>

    public init(_ script: [String: [Answer]] = [:]) {
        state = NIOLockedValueBox((Dictionary(uniqueKeysWithValues: script.map { (Self.key($0.key), $0.value) }), [], []))
    }

    /// `name` answers `addresses` on every lookup.
    public convenience init(_ name: String, _ addresses: [String]) {
        self.init([name: [.addresses(addresses)]])
    }

    /// Every name asked for, as asked, in order.
    public var asked: [String] { state.withLockedValue { $0.asked } }

    /// Every name whose lookup hung until its caller gave up on it (cancelled it), in order.
    public var abandoned: [String] { state.withLockedValue { $0.abandoned } }

    public func literalAddress(_ name: String) -> IPAddress? {
        IPAddress(Self.key(name))
    }

    public func addresses(of name: String) async throws -> [IPAddress] {
        let answer = state.withLockedValue { state -> Answer? in
            state.asked.append(name)
            let key = Self.key(name)
            guard let answers = state.script[key], let first = answers.first else { return nil }
            if answers.count > 1 { state.script[key]?.removeFirst() }
            return first
        }
        switch answer {
        case .addresses(let texts)?:
            return texts.map { IPAddress($0)! }
        case .hang?:
            // Cancelled when the caller stops waiting; an hour is never reached.
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                state.withLockedValue { $0.abandoned.append(name) }
                throw error
            }
            return []
        case nil:
            return IPAddress(Self.key(name)).map { [$0] } ?? []
        }
    }

    private static func key(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }
}
