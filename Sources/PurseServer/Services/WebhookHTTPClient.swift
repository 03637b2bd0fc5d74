import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import X509

/// One HTTP/1.1 request to an address given, not a name: webhook delivery connects to the
/// address its destination check approved, and names the URL's host only in `Host` and in TLS
/// (SNI, and the certificate check against the trust roots). Over TLS the request is written
/// only once the certificate is checked. No redirect is followed, no connection kept; the
/// response's body is read up to ``responseBodyLimit`` and dropped.
struct WebhookHTTPClient: Sendable {
    /// How much of a response's body is read before the attempt ends with its status.
    static let responseBodyLimit = 64 * 1024

    private let group: any EventLoopGroup
    /// Made once: reading the trust roots is not free. An error (no trust store on this system)
    /// fails the https attempts, and says why in the log.
    private let tls: Result<NIOSSLContext, any Error>

    init(trustRoots: NIOSSLTrustRoots = .default, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = trustRoots
        self.tls = Result { try NIOSSLContext(configuration: configuration) }
    }

    struct Request: Sendable {
        var head: HTTPRequestHead
        var body: ByteBuffer
    }

    /// Over TLS: the name to ask for and to find in the certificate, or nil for an IP address
    /// (the certificate must then name that address).
    struct TLS: Sendable {
        var serverName: String?
    }

    /// The certificate, valid for the trust roots, does not name the host asked for.
    struct CertificateNameMismatch: Error, CustomStringConvertible {
        let serverName: String
        var description: String { "the certificate does not name \(serverName)" }
    }

    /// Whether a certificate's DNS names (subject alternative names) name `host`, as RFC 6125
    /// §6.4 and browsers match them: equal without case or trailing dot, or `*.` and the host's
    /// parent when that has two labels or more (`*.example.com` names `a.example.com`, but not
    /// `example.com` or `a.b.example.com`, and `*.com` names nothing).
    ///
    /// NIOSSL's own check also accepts a certificate naming the connected IP address whatever
    /// the host: anyone who could point a tenant's name at a server holding a certificate for
    /// its own address would receive that tenant's events. This check runs besides it.
    static func certificateNames(_ names: [String], name host: String) -> Bool {
        func normalized(_ name: String) -> [Substring] {
            let lowered = name.lowercased()
            return (lowered.hasSuffix(".") ? lowered.dropLast() : Substring(lowered)).split(separator: ".", omittingEmptySubsequences: false)
        }
        let wanted = normalized(host)
        guard wanted.allSatisfy({ !$0.isEmpty }) else { return false }
        return names.contains { name in
            let labels = normalized(name)
            guard labels.count == wanted.count, labels.allSatisfy({ !$0.isEmpty }) else { return false }
            if labels[0] == "*" { return labels.count >= 3 && labels.dropFirst() == wanted.dropFirst() }
            return labels == wanted
        }
    }

    /// The DNS names a certificate is for.
    static func dnsNames(of certificate: NIOSSLCertificate) throws -> [String] {
        let parsed = try Certificate(derEncoded: try certificate.toDERBytes())
        return try parsed.extensions.subjectAlternativeNames?.compactMap {
            if case .dnsName(let name) = $0 { name } else { nil }
        } ?? []
    }

    /// The attempt ran out of time.
    struct Timeout: Error {}

    /// The connection closed before the whole response came.
    struct ClosedBeforeResponse: Error {}

    /// The response's status code, once its head and its body (up to the limit) are read.
    /// Tries `addresses` in order until one accepts a connection; everything ends by `deadline`,
    /// however slowly the peer answers.
    func post(_ request: Request, to addresses: [SocketAddress], tls: TLS?, deadline: NIODeadline) async throws -> Int {
        var failure: any Error = ChannelError.connectTimeout(.zero)
        for address in addresses {
            guard deadline > .now() else { throw Timeout() }
            let loop = group.next()
            let response = loop.makePromise(of: Int.self)
            let channel: any Channel
            do {
                channel = try await connect(to: address, on: loop, tls: tls, request: request, response: response, deadline: deadline)
            } catch {
                response.fail(error)
                failure = error
                continue
            }
            let timer = loop.scheduleTask(deadline: deadline) { response.fail(Timeout()) }
            response.futureResult.whenComplete { _ in
                timer.cancel()
                channel.close(promise: nil)
            }
            return try await withTaskCancellationHandler {
                try await response.futureResult.get()
            } onCancel: {
                response.fail(CancellationError())
            }
        }
        throw failure
    }

    private func connect(
        to address: SocketAddress, on loop: any EventLoop, tls: TLS?, request: Request, response: EventLoopPromise<Int>,
        deadline: NIODeadline
    ) async throws -> any Channel {
        let context: NIOSSLContext? = try tls.map { _ in try self.tls.get() }
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(deadline - .now())
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let context {
                        try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: tls?.serverName))
                    }
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(ResponseReader(request: request, tls: tls, response: response))
                }
            }
        return try await bootstrap.connect(to: address).get()
    }
}

/// Sends the request once connected (over TLS, once the handshake is done and the certificate
/// names the host), then reads the response: the final head's status (1xx interim responses are
/// skipped), and the body up to the limit.
private final class ResponseReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: WebhookHTTPClient.Request
    private let tls: WebhookHTTPClient.TLS?
    private let response: EventLoopPromise<Int>
    private var status: Int?
    private var bodyBytes = 0

    init(request: WebhookHTTPClient.Request, tls: WebhookHTTPClient.TLS?, response: EventLoopPromise<Int>) {
        self.request = request
        self.tls = tls
        self.response = response
    }

    func channelActive(context: ChannelHandlerContext) {
        if tls == nil { send(context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            if let serverName = tls?.serverName {
                let names = try? context.pipeline.syncOperations.nioSSL_peerCertificate().map(WebhookHTTPClient.dnsNames)
                guard let names, WebhookHTTPClient.certificateNames(names, name: serverName) else {
                    response.fail(WebhookHTTPClient.CertificateNameMismatch(serverName: serverName))
                    context.close(promise: nil)
                    return
                }
            }
            send(context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func send(_ context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(request.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let code = Int(head.status.code)
            if (100..<200).contains(code) && code != 101 { return }
            status = code
        case .body(let chunk):
            bodyBytes += chunk.readableBytes
            if bodyBytes > WebhookHTTPClient.responseBodyLimit, let status { response.succeed(status) }
        case .end:
            if let status { response.succeed(status) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        response.fail(WebhookHTTPClient.ClosedBeforeResponse())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A peer that closes without TLS's close_notify, after a response whose end is the
        // connection's end, has still answered.
        if let status, case NIOSSLError.uncleanShutdown = error {
            response.succeed(status)
        } else {
            response.fail(error)
        }
        context.close(promise: nil)
    }
}
