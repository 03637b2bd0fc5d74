import Foundation
import Testing

@testable import Postgres

/// Both ways of waiting on a socket (``SocketWaiting``) hold to the same contract, on a pair of
/// connected Unix sockets: the epoll reactor that Linux uses, and the Dispatch sources that Apple
/// platforms use, which run here too.
@Suite("Socket readiness")
struct SocketReadinessTests {
    static var kinds: [any SocketWaiting.Type] {
        #if os(Linux)
        [EpollSocketReadiness.self, DispatchSocketReadiness.self]
        #else
        [DispatchSocketReadiness.self]
        #endif
    }

    @Test(arguments: kinds.indices)
    func aWaitEndsWhenTheOtherSideWrites(kind: Int) async throws {
        try await withSocketPair { local, remote in
            let readiness = try #require(Self.make(kind, socket: local))
            defer { readiness.stop() }
            async let outcome = readiness.wait(readable: true, writable: false, timeout: .seconds(30))
            try await Task.sleep(for: .milliseconds(20))
            #expect(write(remote, "x", 1) == 1)
            #expect(try await outcome == .readable)
        }
    }

    @Test(arguments: kinds.indices)
    func aWaitForWritingEndsAtOnceOnAnEmptyBuffer(kind: Int) async throws {
        try await withSocketPair { local, _ in
            let readiness = try #require(Self.make(kind, socket: local))
            defer { readiness.stop() }
            #expect(try await readiness.wait(readable: true, writable: true, timeout: .seconds(30)) == .writable)
        }
    }

    /// A quiet socket times out; the timeout of one wait never ends the next.
    @Test(arguments: kinds.indices)
    func aQuietWaitTimesOutAndTheNextWaitStillWorks(kind: Int) async throws {
        try await withSocketPair { local, remote in
            let readiness = try #require(Self.make(kind, socket: local))
            defer { readiness.stop() }
            let started = ContinuousClock.now
            #expect(try await readiness.wait(readable: true, writable: false, timeout: .milliseconds(50)) == .timedOut)
            #expect(ContinuousClock.now - started >= .milliseconds(45))
            async let outcome = readiness.wait(readable: true, writable: false, timeout: .seconds(30))
            try await Task.sleep(for: .milliseconds(150))
            #expect(write(remote, "x", 1) == 1)
            #expect(try await outcome == .readable)
        }
    }

    /// Data that was already there ends a wait at once; once read, the socket is quiet again.
    @Test(arguments: kinds.indices)
    func everyWaitSeesTheSocketAsItIsThen(kind: Int) async throws {
        try await withSocketPair { local, remote in
            let readiness = try #require(Self.make(kind, socket: local))
            defer { readiness.stop() }
            for round in 0..<200 {
                #expect(write(remote, "x", 1) == 1)
                #expect(try await readiness.wait(readable: true, writable: false, timeout: .seconds(30)) == .readable, "round \(round)")
                var byte: UInt8 = 0
                #expect(read(local, &byte, 1) == 1)
            }
            #expect(try await readiness.wait(readable: true, writable: false, timeout: .milliseconds(20)) == .timedOut)
        }
    }

    /// Stopping fails a wait in progress and every later one; stopping twice is harmless.
    @Test(arguments: kinds.indices)
    func stoppingFailsTheWait(kind: Int) async throws {
        try await withSocketPair { local, _ in
            let readiness = try #require(Self.make(kind, socket: local))
            let waiting = Task { try await readiness.wait(readable: true, writable: false, timeout: nil) }
            try await Task.sleep(for: .milliseconds(20))
            readiness.stop()
            readiness.stop()
            await #expect(throws: PGError.self) { try await waiting.value }
            await #expect(throws: PGError.self) { try await readiness.wait(readable: true, writable: false, timeout: nil) }
        }
    }

    /// Many sockets at once, each wait ended by its own socket only: the odd ones, never
    /// written to, time out (their short timeout also runs beside the even ones' long waits).
    @Test(arguments: kinds.indices)
    func manySocketsEachWakeTheirOwnWait(kind: Int) async throws {
        var pairs: [(Int32, Int32)] = []
        defer {
            for (local, remote) in pairs {
                close(local)
                close(remote)
            }
        }
        for _ in 0..<16 { pairs.append(try Self.socketPair()) }
        let waits = try pairs.map { try #require(Self.make(kind, socket: $0.0)) }
        defer { for readiness in waits { readiness.stop() } }
        try await withThrowingTaskGroup(of: (Int, SocketReadinessOutcome).self) { group in
            for (index, readiness) in waits.enumerated() {
                let timeout: Duration = index.isMultiple(of: 2) ? .seconds(30) : .milliseconds(200)
                group.addTask { (index, try await readiness.wait(readable: true, writable: false, timeout: timeout)) }
            }
            try await Task.sleep(for: .milliseconds(20))
            for (index, (_, remote)) in pairs.enumerated() where index.isMultiple(of: 2) {
                #expect(write(remote, "x", 1) == 1)
            }
            for try await (index, outcome) in group {
                #expect(outcome == (index.isMultiple(of: 2) ? .readable : .timedOut), "socket \(index)")
            }
        }
    }

    private static func make(_ kind: Int, socket: Int32) -> (any SocketWaiting)? {
        let type = kinds[kind]
        return type.init(socket: socket)
    }

    private func withSocketPair(_ body: (Int32, Int32) async throws -> Void) async throws {
        let (local, remote) = try Self.socketPair()
        defer {
            close(local)
            close(remote)
        }
        try await body(local, remote)
    }

    private static func socketPair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [0, 0]
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        try #require(socketpair(AF_UNIX, type, 0, &descriptors) == 0)
        return (descriptors[0], descriptors[1])
    }
}
