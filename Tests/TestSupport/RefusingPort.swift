import Foundation

/// A loopback port bound but not listening, held until ``release()``: a connection to it is
/// refused. A port found free and closed again can be handed to another test's listener in the
/// meantime, which then answers the connection that was meant to fail (it did: a parallel
/// test's endpoint, serving one connection at a time, answered the "refused" one and never its
/// own test's).
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSetupError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        // bind and getsockname take the sockaddr_in as a sockaddr; the pointer does not outlive the closure.
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestSetupError("bind() failed")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func release() {
        close(descriptor)
    }
}
