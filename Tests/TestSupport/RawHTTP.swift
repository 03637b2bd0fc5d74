import Foundation

/// HTTP/1.1 over a plain socket, for what URLSession will not send: a body that arrives slowly,
/// bytes that are not UTF-8, a request that never finishes. Its calls block, so async callers use
/// the `async` versions, which run them off the cooperative threads.
public final class RawHTTPConnection: @unchecked Sendable {
    // @unchecked: a connection is used by one test task at a time.
    private let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestSetupError("connect() to port \(port) failed")
        }
    }

    deinit { close(descriptor) }

    /// Connects without blocking a cooperative thread.
    public static func open(port: Int) async throws -> RawHTTPConnection {
        try await Blocking.run { try RawHTTPConnection(port: port) }
    }

    public func write(_ text: String) async throws {
        try await Blocking.run { try self.send(text) }
    }

    public func write(_ bytes: [UInt8]) async throws {
        try await Blocking.run { try self.send(bytes) }
    }

    public func response(timeout seconds: Int = 30) async throws -> (status: Int, body: String, headers: [String: String]) {
        try await Blocking.run { try self.readResponse(timeout: seconds) }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw TestSetupError("write() failed") }
            offset += written
        }
    }

    /// Reads until the server closes the connection or a whole response (by Content-Length) has
    /// arrived, and returns the status code, the body and the headers (names lowercased).
    public func readResponse(timeout seconds: Int = 30) throws -> (status: Int, body: String, headers: [String: String]) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[0..<count]
            if let response = Self.complete(received) { return response }
        }
        guard let response = Self.complete(received) else {
            throw TestSetupError("Incomplete response: \(String(decoding: received, as: UTF8.self))")
        }
        return response
    }

    /// Whether the server closes the connection, sending nothing, within `seconds`: false when
    /// the time runs out first or bytes arrive.
    public func closesUnanswered(within seconds: Int) async throws -> Bool {
        try await Blocking.run {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(self.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            return read(self.descriptor, &byte, 1) == 0
        }
    }

    private static func complete(_ bytes: [UInt8]) -> (status: Int, body: String, headers: [String: String])? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<headerEnd.lowerBound]
        let body = String(text[headerEnd.upperBound...])
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        var headers: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return body.utf8.count >= length ? (status, body, headers) : nil
    }
}
