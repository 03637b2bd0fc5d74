import Synchronization
import Testing

@testable import PurseServer

@Suite("One shared read for concurrent scrapes")
struct SharedReadTests {
    /// Counters the test and the reads share.
    private final class Tally: Sendable {
        let reads = Atomic(0)
        let arrived = Atomic(0)
        let released = Atomic(false)
    }

    @Test func callersDuringAReadShareItAndTheNextCallerReadsAfresh() async throws {
        let tally = Tally()
        let shared = SharedRead { () async throws -> Int in
            let number = tally.reads.add(1, ordering: .relaxed).newValue
            while !tally.released.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
            return number
        }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    tally.arrived.add(1, ordering: .relaxed)
                    return try await shared.value()
                }
            }
            while tally.arrived.load(ordering: .relaxed) < 20 { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(100))
            tally.released.store(true, ordering: .relaxed)
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 1, count: 20))
        #expect(tally.reads.load(ordering: .relaxed) == 1)
        #expect(try await shared.value() == 2)
    }

    @Test func aFailedReadFailsItsCallerAndTheNextOneTriesAgain() async throws {
        struct Unreachable: Error {}
        let tally = Tally()
        let shared = SharedRead { () async throws -> Int in
            if tally.reads.add(1, ordering: .relaxed).newValue == 1 { throw Unreachable() }
            return 7
        }
        await #expect(throws: Unreachable.self) { try await shared.value() }
        #expect(try await shared.value() == 7)
    }
}
