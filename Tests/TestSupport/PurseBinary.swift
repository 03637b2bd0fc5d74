public import Foundation

/// The built `purse` executable, for tests that run it as users do.
public enum PurseBinary {
    /// `PURSE_BINARY` when set, else the `purse` beside the test bundle in `.build/<triple>/debug`.
    public static var path: String {
        if let path = ProcessInfo.processInfo.environment["PURSE_BINARY"] { return path }
        let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        return buildFolder.appendingPathComponent("purse").path
    }

    /// The repository's top folder (for files such as `sql/`).
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
