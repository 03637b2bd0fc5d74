import Foundation

/// libFuzzer's entry point, used when built with `swift build --sanitize=fuzzer` (scripts/fuzz):
/// libFuzzer's own `main` then drives it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    BodyFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !PURSE_FUZZING
/// In a plain build (which must keep working), the same checks over the files named on the
/// command line: how a crash input libFuzzer saved is replayed under a debugger.
@main
struct PurseFuzz {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let contents = FileManager.default.contents(atPath: path) else {
                print("purse-fuzz: cannot read \(path)")
                exit(1)
            }
            BodyFuzzing.check(Array(contents))
            print("purse-fuzz: \(path) passed")
        }
    }
}
#endif
