/// Just enough JSON writing for what the HTTP layer itself says (errors, arguments), and
/// reading for the response headers a function sets; answers from SQL are passed through
/// as the text PostgreSQL produced.
enum JSONText {
    static func string(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON object of string values, keys in a stable order.
    static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { string($0.0) + ":" + string($0.1) }.joined(separator: ",") + "}"
    }

    /// The pairs of an object whose values are all strings, as `jsonb` prints one
    /// (`{"ETag": "\"u1\"", "Location": "/x"}`); nil for any other text, including
    /// strings with escapes other than `\"`, `\\` and `\/`, which a full parser must read.
    static func stringObject(_ text: String) -> [(name: String, value: String)]? {
        let plainEscapes = Array(#""\/"#.utf8)
        var pairs: [(name: String, value: String)] = []
        var bytes = text.utf8.makeIterator()
        var next = bytes.next()
        func skipSpaces() {
            while next == UInt8(ascii: " ") { next = bytes.next() }
        }
        func readString() -> String? {
            guard next == UInt8(ascii: "\"") else { return nil }
            var out: [UInt8] = []
            while var byte = bytes.next() {
                if byte == UInt8(ascii: "\"") {
                    next = bytes.next()
                    return String(decoding: out, as: UTF8.self)
                }
                if byte < 0x20 { return nil }
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = bytes.next(), plainEscapes.contains(escaped) else { return nil }
                    byte = escaped
                }
                out.append(byte)
            }
            return nil
        }
        guard next == UInt8(ascii: "{") else { return nil }
        next = bytes.next()
        skipSpaces()
        if next == UInt8(ascii: "}") {
            next = bytes.next()
            return next == nil ? pairs : nil
        }
        while true {
            guard let name = readString() else { return nil }
            skipSpaces()
            guard next == UInt8(ascii: ":") else { return nil }
            next = bytes.next()
            skipSpaces()
            guard let value = readString() else { return nil }
            pairs.append((name, value))
            skipSpaces()
            switch next {
            case UInt8(ascii: ","):
                next = bytes.next()
                skipSpaces()
            case UInt8(ascii: "}"):
                next = bytes.next()
                return next == nil ? pairs : nil
            default:
                return nil
            }
        }
    }
}
