import NIOCore
import NIOHTTPTypes

/// The error a request's body stream fails with when the body did not arrive in time; the API
/// answers it with a 408.
struct RequestBodyTimeout: Error {
    let seconds: Int
}

/// Bounds how long a client may take to send a request, so a client that sends headers and then
/// trickles or stalls the body (or never finishes its headers) cannot hold a connection and a
/// task forever.
///
/// Each phase has `seconds` to finish: an idle connection (or one whose request headers are still
/// arriving) is closed when it runs out; a request whose headers arrived but whose body did not
/// finish in time has its body stream failed with ``RequestBodyTimeout`` (the API answers 408
/// with `Connection: close`) and the connection closes once that response is written. Time the
/// server spends on a request after reading it whole is not limited. Hummingbird's own
/// `idleTimeout` restarts on every byte read, so a body trickled a byte at a time would never
/// trip it; this deadline does not move.
///
/// One instance per connection, used only on its channel's event loop (NIO's handler rules).
final class RequestReadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let seconds: Int
    private let timeout: TimeAmount
    /// How long the API has to write the 408 once a body timed out, before the connection is
    /// closed regardless: the read timeout, and at least 10 s. The handler may still be waiting
    /// for the database (authenticating a key not yet in memory) when the body fails, which on
    /// a loaded server takes seconds; closing sooner leaves the client with no answer at all.
    private let answerGrace: TimeAmount
    /// When the current phase runs out; nil while the server works on a request read whole.
    private var deadline: NIODeadline?
    /// The one timer that checks `deadline`. A later deadline does not move it: it re-arms
    /// itself when it fires early. Setting and cancelling a timer twice per request was 1.8–2.5 % of
    /// Purse's CPU on a list (perf).
    private var timer: Scheduled<Void>?
    private var timerFiresAt = NIODeadline.distantFuture
    /// A request whose head has arrived and whose end has not.
    private var isReadingBody = false
    /// Requests whose head has arrived and whose response has not been written in full.
    private var responsesOwed = 0
    /// Set when a body timed out: the connection closes after the response that reports it.
    private var closeAfterResponse = false

    init(seconds: Int) {
        self.seconds = seconds
        self.timeout = .seconds(Int64(seconds))
        self.answerGrace = .seconds(Int64(max(seconds, 10)))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startDeadline(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        startDeadline(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            // The headers are in; the body gets a deadline of its own.
            isReadingBody = true
            responsesOwed += 1
            startDeadline(context)
        case .body:
            break
        case .end:
            // Read whole: what the server does with it now is not bounded here.
            isReadingBody = false
            stopDeadline()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        responsesOwed -= 1
        if closeAfterResponse, responsesOwed <= 0 {
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
            return
        }
        context.write(data, promise: promise)
        // Back to waiting for the next request, unless this one's body is still arriving (its
        // deadline keeps running).
        if responsesOwed <= 0, !isReadingBody { startDeadline(context) }
    }

    private func startDeadline(_ context: ChannelHandlerContext, in amount: TimeAmount? = nil) {
        let deadline = NIODeadline.now() + (amount ?? timeout)
        self.deadline = deadline
        // A timer that fires first finds the new deadline and waits on for it.
        if timer != nil, timerFiresAt <= deadline { return }
        timer?.cancel()
        setTimer(context, at: deadline)
    }

    private func stopDeadline() {
        deadline = nil
    }

    private func setTimer(_ context: ChannelHandlerContext, at time: NIODeadline) {
        // The task runs on the channel's event loop, where this handler lives.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timerFiresAt = time
        timer = context.eventLoop.scheduleTask(deadline: time) {
            let (handler, context) = loopBound.value
            handler.timerFired(context)
        }
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
        deadline = nil
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        timer = nil
        guard let deadline else { return }
        if deadline > .now() {
            setTimer(context, at: deadline)
        } else {
            deadlinePassed(context)
        }
    }

    private func deadlinePassed(_ context: ChannelHandlerContext) {
        deadline = nil
        guard isReadingBody, responsesOwed > 0, !closeAfterResponse else {
            // Idle, headers unfinished, or the answer already sent while the body still trickles.
            context.close(promise: nil)
            return
        }
        // The handler reading the body sees the error and answers 408; give it a while to.
        closeAfterResponse = true
        context.fireErrorCaught(RequestBodyTimeout(seconds: seconds))
        startDeadline(context, in: answerGrace)
    }
}
