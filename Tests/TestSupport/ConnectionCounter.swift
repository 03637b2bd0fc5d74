import NIOCore
import NIOPosix
import Synchronization

/// A TCP listener on a loopback port that counts the connections it accepts and closes each at
/// once: proof of whether anything connected.
public final class ConnectionCounter: Sendable {
    public let port: Int
    private let count: Counter

    private final class Counter: Sendable {
        let value = Atomic(0)
    }

    private init(port: Int, count: Counter) {
        self.port = port
        self.count = count
    }

    /// Connections accepted so far.
    public var accepted: Int { count.value.load(ordering: .sequentiallyConsistent) }

    /// Runs `body` with a counter listening on 127.0.0.1, and closes it afterwards.
    public static func with<Result>(_ body: (ConnectionCounter) async throws -> Result) async throws -> Result {
        let count = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                count.value.add(1, ordering: .sequentiallyConsistent)
                return child.close()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let counter = ConnectionCounter(port: channel.localAddress?.port ?? 0, count: count)
        do {
            let result = try await body(counter)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }
}
