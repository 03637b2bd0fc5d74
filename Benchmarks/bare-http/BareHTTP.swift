import ArgumentParser
import Foundation
import Hummingbird

/// The benchmark's HTTP floor: a bare Hummingbird 2 server that answers `GET /healthz` with the
/// body Purse's does, and nothing else (no middleware, no metrics, no executor of Purse's). Its
/// CPU per request is what Hummingbird itself costs on this machine, which Purse's `/healthz`
/// is judged against. Given a database and statements, it also serves the read and write floors
/// (``SQLFloor``) at `GET` and `POST /sql/{workload}/{index}/{request}`.
@main
struct BareHTTP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bare-http", abstract: "Serves GET /healthz with Hummingbird alone, on loopback."
    )

    @Option(help: "The port on 127.0.0.1 (0: any free one, printed once listening).")
    var port = 0

    @Option(help: "A libpq connection URL for the read and write floors.")
    var databaseURL: String?

    @Option(help: "A JSON file of workload names to rows of requests of SQL statements: the floors'.")
    var statements: String?

    func run() async throws {
        let router = Router()
        if let databaseURL, let statements {
            let floor = try SQLFloor(url: databaseURL, statementsFile: statements)
            let answer: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
                try floor.answer(
                    workload: context.parameters.require("workload"),
                    index: context.parameters.require("index", as: Int.self),
                    request: context.parameters.require("request", as: Int.self),
                    token: request.uri.queryParameters["token"].map(String.init)
                )
            }
            router.get("/sql/:workload/:index/:request", use: answer)
            router.post("/sql/:workload/:index/:request", use: answer)
        }
        router.get("/healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#))
            )
        }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("bare-http: listening on port \(port)\n".utf8))
            }
        )
        try await application.runService()
    }
}
