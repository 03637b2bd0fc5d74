/// Writes a ``JSONValue`` as compact UTF-8 JSON.
public enum JSONWriter {
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, to: &output)
        return output
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    static func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null:
            output += "null".utf8
        case .bool(let flag):
            output += (flag ? "true" : "false").utf8
        case .int(let number):
            output += String(number).utf8
        case .double(let number):
            if number.isFinite {
                output += (number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)").utf8
            } else {
                output += "null".utf8
            }
        case .string(let text):
            writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, entry) in object.entries.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(entry.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(entry.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `text` as a JSON string, escaping what JSON requires.
    public static func writeString(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { writeString(utf8: $0, to: &output) }
    }

    /// Writes UTF-8 bytes (already valid UTF-8) as a JSON string.
    public static func writeString(utf8 text: ArraySlice<UInt8>, to output: inout [UInt8]) {
        text.withUnsafeBufferPointer { writeString(utf8: $0, to: &output) }
    }

    static func writeString(utf8 text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                output.append(contentsOf: [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
