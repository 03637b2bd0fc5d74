import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// A TCP proxy on a loopback port that can fall silent: once `silence()` is called it keeps
/// every connection open and accepts what either side sends, but passes nothing on. To a client
/// that is a server which stopped answering without closing anything, as after a failover or
/// behind a firewall that forgot the connection: no reset, no error, just no answer.
public final class SilenceableProxy: Sendable {
    public let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let isSilent = Atomic(false)
    private let isStopped = Atomic(false)
    /// Every socket the proxy opened, closed by `stop()`.
    private let sockets = NIOLockedValueBox<[Int32]>([])

    /// Listens on a free loopback port and forwards each connection to `upstreamPort`.
    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("socket() failed") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestSetupError("the proxy could not listen")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        sockets.withLockedValue { $0.append(listener) }
        Thread { [self] in acceptConnections() }.start()
    }

    /// From now on nothing is passed on in either direction.
    public func silence() {
        isSilent.store(true, ordering: .relaxed)
    }

    /// Closes the listener and every connection.
    public func stop() {
        isStopped.store(true, ordering: .relaxed)
        for descriptor in sockets.withLockedValue({ $0 }) { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func acceptConnections() {
        while !isStopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { break }
            var address = Self.loopback(port: upstreamPort)
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            sockets.withLockedValue { $0 += [client, server] }
            guard connected else {
                shutdown(client, Int32(SHUT_RDWR))
                continue
            }
            Thread { [self] in pump(from: client, to: server) }.start()
            Thread { [self] in pump(from: server, to: client) }.start()
        }
    }

    /// Copies bytes one way until either side closes; once silent, reads and drops them.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if isSilent.load(ordering: .relaxed) { continue }
            var offset = 0
            while offset < count {
                let written = buffer[offset..<count].withUnsafeBytes { write(destination, $0.baseAddress, $0.count) }
                guard written > 0 else { return }
                offset += written
            }
        }
        if !isSilent.load(ordering: .relaxed) { shutdown(destination, Int32(SHUT_RDWR)) }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    deinit {
        stop()
        for descriptor in sockets.withLockedValue({ $0 }) { close(descriptor) }
    }
}
