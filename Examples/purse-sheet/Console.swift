import Foundation

/// The terminal: lines in from standard input, lines out to standard output, written at once
/// (not buffered) so a program driving the sheet through a pipe sees each answer as it comes.
enum Console {
    /// Whether a person is typing (prompts are shown only then).
    static let isInteractive = isatty(STDIN_FILENO) == 1

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func complain(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Shows `prompt` to a person and reads a line; nil at the end of input.
    static func ask(_ prompt: String) -> String? {
        if isInteractive { FileHandle.standardOutput.write(Data(prompt.utf8)) }
        return readLine()?.trimmingCharacters(in: .whitespaces)
    }
}
