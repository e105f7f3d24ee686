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
        do {
            // SwiftCSV drops a leading byte-order mark (which spreadsheet apps write), so it
            // never becomes part of the first header cell; ImportHTTPTests.byteOrderMark pins it.
            // The file hash, taken over the bytes as sent, keeps the mark.
            csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false)
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
        for fields in csv.rows {
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

    private static func array(_ fields: [String]) -> String {
        "[" + fields.map(JSONText.string).joined(separator: ",") + "]"
    }

    private static func newlines(in fields: [String]) -> Int {
        fields.reduce(0) { count, field in count + field.reduce(0) { $0 + ($1.isNewline ? 1 : 0) } }
    }
}
