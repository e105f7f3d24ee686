import Foundation
import PQ
import Testing

@testable import LiftbaseHTTP

@Suite("streamed rows")
struct RowStreamTests {
    @Test(
        "single-row mode hands every row in order; a handler that throws stops the statement and leaves the connection usable"
    )
    func rowsInOrderAndStopOnError() throws {
        let connection = try TestDatabase.admin()
        var rows: [String?] = []
        try connection.streamRows(
            "select case when n = 3 then null else n::text end from generate_series(1, $1::integer) as n",
            ["5"]
        ) {
            rows.append($0)
        }
        #expect(rows == ["1", "2", nil, "4", "5"])

        struct Enough: Error {}
        var seen = 0
        #expect(throws: Enough.self) {
            try connection.streamRows("select n::text from generate_series(1, 1000000) as n") { _ in
                seen += 1
                if seen == 3 { throw Enough() }
            }
        }
        #expect(seen == 3)
        #expect(try connection.query("select 'still usable'").scalar == "still usable")
    }

    @Test("writeRows writes every row, in order, across many 64 KiB writes")
    func writeRowsToFile() throws {
        let connection = try TestDatabase.admin()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("liftbase-rows-\(UUID().uuidString)")
            .path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try #require(FileHandle(forWritingAtPath: path))
        // 200,000 lines of 7 bytes: about 21 writes of 64 KiB and a short last one.
        try connection.writeRows(
            "select lpad(n::text, 6, '0') || E'\\n' from generate_series(1, 200000) as n",
            to: file
        )
        try file.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 200_000)
        #expect(lines.first == "000001" && lines.last == "200000")
        #expect(lines.map { Int($0)! } == Array(1...200_000))
    }

    @Test("an error raised before the first row is thrown, with no row handed over")
    func errorBeforeFirstRow() throws {
        let connection = try TestDatabase.admin()
        var rows = 0
        let error = try #require(throws: PostgresError.self) {
            try connection.streamRows("select 1 / (n - 1) from generate_series(1, 3) as n order by 1") { _ in
                rows += 1
            }
        }
        #expect(error.sqlstate == "22012")
        #expect(rows == 0)
        #expect(try connection.query("select 1").scalar == "1")
    }
}
