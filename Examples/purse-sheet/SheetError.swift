/// A mistake in a command, told to the person at the sheet.
struct SheetError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
