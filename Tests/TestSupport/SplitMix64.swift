/// SplitMix64: a tiny seeded generator, so property tests see the same cases on every run and a
/// failure names its seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    public mutating func chance(oneIn count: Int) -> Bool { Int.random(in: 0..<count, using: &self) == 0 }

    public mutating func pick<Element>(_ choices: [Element]) -> Element { choices.randomElement(using: &self)! }
}
