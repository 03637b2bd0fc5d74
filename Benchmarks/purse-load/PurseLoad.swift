import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A closed-loop HTTP load generator (like wrk, which this machine lacks) for the benchmark:
/// a fixed number of keep-alive connections, each making one workload operation after
/// another on one event loop thread, and a JSON report of throughput and latency percentiles.
@main
struct PurseLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purse-load",
        abstract: "Runs a workload file against a server at fixed concurrency and reports throughput and latency as JSON."
    )

    @Option(help: "The server, e.g. http://127.0.0.1:4242; given more than once, the connections take the servers in turn.")
    var url: [String]

    @Option(help: "The workload file (JSON; see Workload.swift).")
    var workload: String

    @Option(help: "Concurrent connections.")
    var connections = 32

    @Option(help: "Seconds of warm-up, not measured.")
    var warmup: Double = 2

    @Option(help: "Seconds measured.")
    var duration: Double = 10

    @Option(help: "Make exactly this many operations per connection and measure all of them (no warm-up or duration).")
    var operations: Int?

    @Option(help: "Where to write the JSON report (default: standard output).")
    var output: String?

    func run() async throws {
        let servers = try url.map { url in
            guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
                throw LoadError("--url must look like http://127.0.0.1:4242")
            }
            return (host: host, port: port)
        }
        guard !servers.isEmpty else { throw LoadError("--url is required") }
        let compiled = CompiledWorkload(try Workload.load(workload))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let started = NIODeadline.now()
        let window = RunWindow(
            measureFrom: started + .nanoseconds(Int64(warmup * 1e9)),
            measureUntil: started + .nanoseconds(Int64((warmup + duration) * 1e9)),
            operationLimit: operations
        )
        var finishes: [EventLoopFuture<ConnectionResult>] = []
        for connection in 0..<connections {
            let (host, port) = servers[connection % servers.count]
            let loop = group.next()
            let done = loop.makePromise(of: ConnectionResult.self)
            let connections = self.connections
            let bootstrap = ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            ConnectionDriver(
                                workload: compiled, window: window, host: "\(host):\(port)", connection: connection,
                                connections: connections, done: done
                            )
                        )
                    }
                }
            bootstrap.connect(host: host, port: port).whenFailure { error in
                var failed = ConnectionResult()
                failed.recordError("could not connect: \(error)")
                done.succeed(failed)
            }
            finishes.append(done.futureResult)
        }
        var results: [ConnectionResult] = []
        for finish in finishes {
            results.append(try await finish.get())
        }
        try await group.shutdownGracefully()

        let seconds = operations == nil ? duration : Double((NIODeadline.now() - started).nanoseconds) / 1e9
        let report = LoadReport(workload: compiled.name, connections: connections, seconds: seconds, results: results)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(report)
        if let output {
            try data.write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}
