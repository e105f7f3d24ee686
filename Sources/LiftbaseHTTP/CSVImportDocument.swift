import SwiftCSV

/// A CSV export as the one JSON document the import functions read:
/// `{"file_sha256": "...", "header": [...], "rows": [{"line": 2, "fields": [...]}, ...]}`.
/// Only CSV syntax is handled here (quoting, fields spanning lines, line numbers); what the
/// columns mean is decided in SQL.
enum CSVImportDocument {
    struct Malformed: Error { let reason: String }

    static func json(fromCSV text: String, fileSHA256: String) throws -> String {
        // Quotes come in pairs in well-formed CSV (around a field, or doubled inside one); the
        // parser reads an unclosed quote to the end of the file instead of failing.
        if text.utf8.reduce(0, { $0 + ($1 == UInt8(ascii: "\"") ? 1 : 0) }) % 2 == 1 {
            throw Malformed(reason: "a quoted field is not closed")
        }
        let csv: EnumeratedCSV
        var records: [[String]] = []
        do {
            // SwiftCSV drops a leading byte-order mark (which spreadsheet apps write), so it
            // never becomes part of the first header cell; ImportHTTPTests.byteOrderMark pins it.
            // The file hash, taken over the bytes as sent, keeps the mark.
            csv = try EnumeratedCSV(string: text, delimiter: delimiter(of: text), loadColumns: false, rowLimit: 0)
            // Rows are read one by one rather than through `csv.rows`, which pads every row to
            // the widest one: a single row with an unquoted comma in a name would give every
            // row of the file a field too many, and SQL could no longer tell which to mend.
            try csv.enumerateAsArray(startAt: 1, rowLimit: nil) { records.append($0) }
        } catch let error as CSVParseError {
            switch error {
            case .generic(let message), .quotation(let message): throw Malformed(reason: message)
            }
        }
        var out = "{\"file_sha256\":" + JSONText.string(fileSHA256) + ",\"header\":" + array(csv.header) + ",\"rows\":["
        out.reserveCapacity(text.utf8.count * 2)
        // A row starts on the line after the previous row ended; a quoted field holding line
        // breaks makes its row span several lines.
        var line = 1 + newlines(in: csv.header)
        var first = true
        for fields in records {
            let start = line + 1
            line = start + newlines(in: fields)
            // A blank line is no row.
            if fields.allSatisfy(\.isEmpty) { continue }
            if !first { out += "," }
            first = false
            out += "{\"line\":" + String(start) + ",\"fields\":" + array(fields) + "}"
        }
        return out + "]}"
    }

    /// Commas, or semicolons where the header line holds more of them than commas: some apps
    /// (Strong in some locales) separate fields by semicolons, where a comma is the decimal mark.
    static func delimiter(of text: String) -> CSVDelimiter {
        let header = text.utf8.prefix { $0 != UInt8(ascii: "\n") }
        let semicolons = header.reduce(0) { $0 + ($1 == UInt8(ascii: ";") ? 1 : 0) }
        let commas = header.reduce(0) { $0 + ($1 == UInt8(ascii: ",") ? 1 : 0) }
        return semicolons > commas ? .semicolon : .comma
    }

    private static func array(_ fields: [String]) -> String {
        "[" + fields.map(JSONText.string).joined(separator: ",") + "]"
    }

    private static func newlines(in fields: [String]) -> Int {
        fields.reduce(0) { count, field in count + field.reduce(0) { $0 + ($1.isNewline ? 1 : 0) } }
    }
}
