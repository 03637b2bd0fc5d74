extension Array where Element: Equatable {
    /// The elements in order, each once: a list parameter that names a value twice means it once.
    var distinct: [Element] {
        reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}
