/// Checks bytes are well-formed UTF-8 (so nothing is silently replaced with U+FFFD).
public enum UTF8Validation {
    public static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
        // `transcode` reports whether it met an ill-formed sequence.
        let failed = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        return !failed
    }
}
