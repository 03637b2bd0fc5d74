import Foundation
import TestSupport

/// A listening socket that answers every request with the same raw HTTP response, for
/// responses Purse does not give today (a 429 while rate limits are off, a 500). Plain sockets
/// on a thread of its own, so no second HTTP framework is needed.
final class CannedHTTPServer: @unchecked Sendable {
    // @unchecked: `descriptor` is set once; the accept thread only reads it.
    let port: Int
    private let descriptor: Int32
    private let response: [UInt8]

    /// Listens on a free loopback port and starts answering with `status`, `headers` and `body`.
    init(status: String, headers: [String: String], body: String) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = self.descriptor
        // bind and getsockname take the sockaddr_in as a sockaddr; the pointer does not outlive the closure.
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                    && listen(descriptor, 16) == 0
            }
        }
        guard listening else {
            close(descriptor)
            throw TestSetupError("Could not listen on a loopback port")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        var head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        response = Array((head + "\r\n" + body).utf8)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops listening (the accept thread ends).
    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    private func acceptLoop() {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            readRequest(client)
            // The buffer is read only inside the closure; a short write only shortens a test's response.
            response.withUnsafeBytes { _ = write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }

    /// Reads the request head and its body (by Content-Length), so the client sees a clean exchange.
    private func readRequest(_ client: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let length =
                text[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if text[end.upperBound...].utf8.count >= length { return }
        }
    }
}
