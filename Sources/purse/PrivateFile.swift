import Foundation

/// Files that hold a secret (the master key, a private key): readable by their owner only.
enum PrivateFile {
    /// Creates `file` with mode 0600 holding `text`. False when the file already exists (it is
    /// left as it is, so two processes creating it at once agree on the first one's content).
    static func create(_ text: String, at file: URL) throws -> Bool {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return false }
            throw CommandError("Cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CommandError("Cannot write \(file.path)") }
        return true
    }
}
