public import Foundation

/// A new empty folder for one test, under `PURSE_TEST_ROOT` when set.
public enum TestFolder {
    public static func make(_ name: String) throws -> URL {
        let root =
            ProcessInfo.processInfo.environment["PURSE_TEST_ROOT"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        let folder = root.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Readable by the other users tests run commands as (`postgres`, `nobody`).
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        return folder
    }
}
