import Prometheus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's own figures, under the names every Prometheus client library uses, read from
/// `/proc` at scrape time (two small reads and one directory listing). Where there is no
/// `/proc` (macOS), nothing is written.
enum ProcessMetrics {
    struct Snapshot: Equatable {
        var cpuSeconds: Double
        var residentBytes: Int
        var virtualBytes: Int
        var startTime: Double
        var openFileDescriptors: Int?
    }

    static func record(into registry: PrometheusCollectorRegistry) {
        guard let snapshot = snapshot() else { return }
        registry.makeCounter(descriptor: .init("process_cpu_seconds_total", help: "CPU time used by the process (user and system), in seconds."))
            .increment(by: snapshot.cpuSeconds)
        registry.makeGauge(descriptor: .init("process_resident_memory_bytes", help: "Resident memory of the process, in bytes."))
            .set(Int64(snapshot.residentBytes))
        registry.makeGauge(descriptor: .init("process_virtual_memory_bytes", help: "Virtual memory of the process, in bytes."))
            .set(Int64(snapshot.virtualBytes))
        registry.makeGauge(
            descriptor: .init("process_start_time_seconds", help: "When the process started, in seconds since the Unix epoch.")
        ).set(snapshot.startTime)
        if let open = snapshot.openFileDescriptors {
            registry.makeGauge(descriptor: .init("process_open_fds", help: "File descriptors the process has open.")).set(Int64(open))
        }
    }

    static func snapshot() -> Snapshot? {
        #if os(Linux)
        guard let stat = readSmallFile("/proc/self/stat"), let fields = statFields(stat), fields.count > 21,
            let utime = Double(fields[11]), let stime = Double(fields[12]), let started = Double(fields[19]),
            let virtualBytes = Int(fields[20]), let residentPages = Int(fields[21]),
            let bootTime = bootTime
        else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard ticks > 0, pageSize > 0 else { return nil }
        return Snapshot(
            cpuSeconds: (utime + stime) / ticks, residentBytes: residentPages * pageSize, virtualBytes: virtualBytes,
            startTime: bootTime + started / ticks, openFileDescriptors: openFileDescriptors()
        )
        #else
        return nil
        #endif
    }

    /// The fields of `/proc/self/stat` after the command name (which may hold spaces and
    /// parentheses, so the split starts after the last `)`): index 0 is field 3, `state`.
    static func statFields(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
    }

    /// Seconds since the epoch when the machine booted (`btime` in `/proc/stat`); read once.
    private static let bootTime: Double? = {
        guard let stat = readSmallFile("/proc/stat", limit: 1 << 20) else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingPrefix(" "))
        }
        return nil
    }()

    private static func openFileDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            // Skips "." and ".."; the descriptor opendir holds is counted, as other clients do.
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in name.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count
    }

    /// A `/proc` file's text: their size reads as 0, so this reads until the end.
    private static func readSmallFile(_ path: String, limit: Int = 64 * 1024) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            // Safe: `read` writes at most `chunk.count` bytes into the buffer it is lent.
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
