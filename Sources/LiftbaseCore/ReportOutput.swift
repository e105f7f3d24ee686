import Foundation

/// Renders the rows of a report (`liftbase report`) as an aligned text table or as CSV.
/// JSON is produced by PostgreSQL itself (json_agg), so that numbers stay numbers.
public enum ReportOutput {
    /// Columns padded to their widest cell, two spaces apart; a column whose values are all
    /// numbers is right-aligned. NULL is an empty cell.
    public static func table(columns: [String], rows: [[String?]]) -> String {
        let cells = rows.map { $0.map { $0 ?? "" } }
        let widths = columns.indices.map { column in
            ([columns[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        let numeric = columns.indices.map { column in
            !cells.isEmpty && cells.allSatisfy { $0[column].isEmpty || Double($0[column]) != nil }
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { column, value in
                let padding = String(repeating: " ", count: widths[column] - value.count)
                return numeric[column] ? padding + value : value + padding
            }.joined(separator: "  ").replacingTrailingSpaces()
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(columns), rule] + cells.map(line)).joined(separator: "\n") + "\n"
    }

    /// RFC 4180: a header record, CRLF line breaks, fields quoted when they hold a comma,
    /// a double quote or a line break, with inner quotes doubled. NULL is an empty field.
    public static func csv(columns: [String], rows: [[String?]]) -> String {
        ([columns] + rows.map { $0.map { $0 ?? "" } })
            .map { $0.map(csvField).joined(separator: ",") + "\r\n" }
            .joined()
    }

    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension String {
    fileprivate func replacingTrailingSpaces() -> String {
        var trimmed = Substring(self)
        while trimmed.last == " " { trimmed.removeLast() }
        return String(trimmed)
    }
}
