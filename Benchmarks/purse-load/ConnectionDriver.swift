import NIOCore
import NIOHTTP1

/// Drives one keep-alive HTTP/1.1 connection through a workload's operations, one request at a
/// time, timing each whole operation. Runs entirely on its channel's event loop.
final class ConnectionDriver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let workload: CompiledWorkload
    private let window: RunWindow
    private let host: String
    private let done: EventLoopPromise<ConnectionResult>
    private var result = ConnectionResult()

    private var rowIndex: Int
    private let rowStride: Int
    private var operationNumber: Int
    private var operations = 0
    private var stepIndex = 0
    private var captures: [String: String] = [:]
    private var operationStart = NIODeadline.now()
    private var status: HTTPResponseStatus = .ok
    private var body: ByteBuffer?
    private var finished = false

    init(workload: CompiledWorkload, window: RunWindow, host: String, connection: Int, connections: Int, done: EventLoopPromise<ConnectionResult>) {
        self.workload = workload
        self.window = window
        self.host = host
        self.rowIndex = connection % workload.rows.count
        self.rowStride = connections
        self.operationNumber = connection * 1_000_000_000
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        startOperation(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
            body = nil
        case .body(var chunk):
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
        case .end:
            responseEnded(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished {
            result.recordError("the server closed the connection")
            finish(context: context)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !finished {
            result.recordError("connection error: \(error)")
            finish(context: context)
        }
        context.close(promise: nil)
    }

    private func responseEnded(context: ChannelHandlerContext) {
        guard (200..<300).contains(status.code) else {
            let text = body.map { String(buffer: $0) } ?? ""
            result.recordError("step \(stepIndex + 1): \(status.code) \(text.prefix(300))")
            nextOperation(context: context)
            return
        }
        let step = workload.steps[stepIndex]
        if !step.capture.isEmpty {
            guard capture(step.capture) else {
                result.recordError("step \(stepIndex + 1): the response lacks \(step.capture.map(\.field))")
                nextOperation(context: context)
                return
            }
        }
        stepIndex += 1
        if stepIndex < workload.steps.count {
            sendStep(context: context)
            return
        }
        let now = NIODeadline.now()
        if window.counts(startedAt: operationStart, finishedAt: now) {
            let micros = (now - operationStart).nanoseconds / 1000
            result.latencies.append(UInt32(clamping: micros))
        }
        result.lastCaptures = captures
        nextOperation(context: context)
    }

    private func nextOperation(context: ChannelHandlerContext) {
        operations += 1
        rowIndex = (rowIndex + rowStride) % workload.rows.count
        if window.isOver(at: .now(), operations: operations) {
            finish(context: context)
        } else {
            startOperation(context: context)
        }
    }

    private func startOperation(context: ChannelHandlerContext) {
        operationNumber += 1
        stepIndex = 0
        captures.removeAll(keepingCapacity: true)
        operationStart = .now()
        sendStep(context: context)
    }

    private func sendStep(context: ChannelHandlerContext) {
        let step = workload.steps[stepIndex]
        let row = workload.rows[rowIndex]
        let number = String(operationNumber)
        let lookup: (String) -> String? = { [captures] name in
            if name == "n" { return number }
            return captures[name] ?? row[name]
        }
        do {
            var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: step.method), uri: try step.path.render(lookup))
            head.headers.add(name: "Host", value: host)
            for header in step.headers {
                head.headers.add(name: header.name, value: try header.value.render(lookup))
            }
            let payload = try step.body?.render(lookup) ?? ""
            if step.body != nil {
                head.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            }
            head.headers.add(name: "Content-Length", value: String(payload.utf8.count))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !payload.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: payload)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } catch {
            result.recordError("\(error)")
            finish(context: context)
        }
    }

    /// Reads the captured fields from the top level of the JSON response.
    private func capture(_ fields: [(variable: String, field: String)]) -> Bool {
        guard let body, let object = TopLevelJSON.strings(in: body) else { return false }
        for (variable, field) in fields {
            guard let value = object[field] else { return false }
            captures[variable] = value
        }
        return true
    }

    private func finish(context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        done.succeed(result)
        context.close(promise: nil)
    }
}
