#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Fills buffers from the system's cryptographic generator, 256 bytes per call (`getentropy`),
/// where the standard library's `SystemRandomNumberGenerator` makes a call per eight bytes.
enum SystemRandom {
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var filled = 0
        while filled < buffer.count {
            let count = min(256, buffer.count - filled)
            guard getentropy(buffer.baseAddress! + filled, count) == 0 else {
                // No getentropy (a very old kernel): the standard library's generator finds a source.
                var generator = SystemRandomNumberGenerator()
                for index in filled..<buffer.count { buffer[index] = generator.next() }
                return
            }
            filled += count
        }
    }
}
