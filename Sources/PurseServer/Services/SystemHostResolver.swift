import NIOCore
import NIOPosix
import PurseCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's resolver: `getaddrinfo`, so `/etc/hosts`, DNS and every numeric spelling of an
/// address are read as any connection on this machine would read them. Numeric spellings are read
/// at once (`AI_NUMERICHOST` never looks anything up); a name lookup blocks, so it runs on NIO's
/// thread pool for blocking work, never on an event loop or the cooperative pool.
struct SystemHostResolver: HostResolver {
    var threadPool: NIOThreadPool = .singleton
    var eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()

    /// A lookup that failed other than by the name not existing (the resolver is unreachable,
    /// say); its text is for the operator's log.
    struct LookupError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "getaddrinfo: " + String(cString: gai_strerror(code)) }
    }

    func literalAddress(_ name: String) -> IPAddress? {
        // With or without a trailing dot: a name lookup of `127.1.` would ask DNS.
        Self.numericAddress(name) ?? (name.hasSuffix(".") ? Self.numericAddress(String(name.dropLast())) : nil)
    }

    func addresses(of name: String) async throws -> [IPAddress] {
        if let literal = literalAddress(name) { return [literal] }
        // A lookup cannot be interrupted: a cancelled caller stops waiting for it, and its
        // answer, when it comes, is dropped (a promise completed twice keeps the first result).
        let answer = eventLoop.makePromise(of: [IPAddress].self)
        threadPool.runIfActive(eventLoop: eventLoop) { try Self.getAddresses(name, flags: 0) }.cascade(to: answer)
        return try await withTaskCancellationHandler {
            try await answer.futureResult.get()
        } onCancel: {
            answer.fail(CancellationError())
        }
    }

    /// The address a numeric spelling stands for, as `getaddrinfo` reads it (`2130706433`,
    /// `0x7f.1`, `0177.0.0.1`, `::ffff:7f00:1`), or nil when `host` is a name. Does not block.
    static func numericAddress(_ host: String) -> IPAddress? {
        try? getAddresses(host, flags: AI_NUMERICHOST).first
    }

    /// Every distinct address `getaddrinfo` gives for `host`, in its order; empty when the name
    /// does not exist.
    private static func getAddresses(_ host: String, flags: Int32) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = flags
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        switch code {
        case 0: break
        case EAI_NONAME: return []
        default: throw LookupError(code: code)
        }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry?.pointee {
            entry = current.ai_next
            guard let socketAddress = current.ai_addr else { continue }
            // Safe: getaddrinfo sets ai_addr to a sockaddr of the family in ai_family, valid until
            // freeaddrinfo (deferred above); the bytes are copied out before the pointer is left.
            let address: IPAddress? =
                switch current.ai_family {
                case AF_INET:
                    socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        withUnsafeBytes(of: $0.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
                    }
                case AF_INET6:
                    socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        withUnsafeBytes(of: $0.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
                    }
                default: nil
                }
            if let address, !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
