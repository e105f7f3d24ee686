/// Splits a script into its top-level statements at the semicolons outside comments,
/// quoted text and dollar-quoted bodies, for scripts that must run one statement per
/// transaction (the bootstrap: see `Migrator.migrate`). Statements keep their text as
/// written; empty ones (only whitespace and comments) are left out.
public enum SQLStatements {
    public static func split(_ script: String) -> [String] {
        let characters = Array(script.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var meaningful = false
        var index = 0

        func flush() {
            if meaningful { statements.append(String(current).trimmingWhitespace()) }
            current = String.UnicodeScalarView()
            meaningful = false
        }
        func take(upTo end: Int) {
            current.append(contentsOf: characters[index..<end])
            index = end
        }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int {
            var position = start
            while position + needle.count <= characters.count {
                if Array(characters[position..<(position + needle.count)]) == needle { return position }
                position += 1
            }
            return characters.count
        }

        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "-" where next == "-":
                let end = find(["\n"], from: index)
                take(upTo: end)
            case "/" where next == "*":
                let end = find(["*", "/"], from: index + 2)
                take(upTo: min(end + 2, characters.count))
            case "'", "\"":
                meaningful = true
                var end = index + 1
                while end < characters.count {
                    if characters[end] == character {
                        // A doubled quote is the quote itself.
                        if end + 1 < characters.count && characters[end + 1] == character {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                take(upTo: min(end + 1, characters.count))
            case "$":
                meaningful = true
                var tagEnd = index + 1
                while tagEnd < characters.count,
                    characters[tagEnd] == "_" || characters[tagEnd].properties.isAlphabetic
                        || ("0"..."9").contains(characters[tagEnd])
                {
                    tagEnd += 1
                }
                if tagEnd < characters.count && characters[tagEnd] == "$" {
                    let tag = Array(characters[index...tagEnd])
                    let close = find(tag, from: tagEnd + 1)
                    take(upTo: min(close + tag.count, characters.count))
                } else {
                    take(upTo: index + 1)
                }
            case ";":
                take(upTo: index + 1)
                flush()
            default:
                if !character.properties.isWhitespace { meaningful = true }
                take(upTo: index + 1)
            }
        }
        flush()
        return statements
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
