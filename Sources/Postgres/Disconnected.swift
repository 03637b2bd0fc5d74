/// A value that nothing else references, on its way across isolation domains: into the pool's
/// lock, say, whose closure cannot take a `sending` value in.
///
/// `@unchecked Sendable` is sound here because the value comes in as `sending` (the compiler
/// checks that the caller keeps no reference) and goes out once, as `sending`: the type is
/// noncopyable and `take()` consumes it.
struct Disconnected<Value>: ~Copyable, @unchecked Sendable {
    private nonisolated(unsafe) let value: Value

    init(_ value: sending Value) {
        self.value = value
    }

    consuming func take() -> sending Value {
        value
    }
}
