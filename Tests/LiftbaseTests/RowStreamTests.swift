@testable import LiftbaseHTTP
import Foundation
import PQ
import Testing

@Suite("streamed rows")
struct RowStreamTests {
    @Test("single-row mode hands every row in order; stopping early leaves the connection usable")
    func rowsInOrderAndEarlyStop() throws {
        let connection = try TestDatabase.admin()
        var rows: [String?] = []
        try connection.streamRows("select case when n = 3 then null else n::text end from generate_series(1, $1::integer) as n", ["5"]) {
            rows.append($0)
            return true
        }
        #expect(rows == ["1", "2", nil, "4", "5"])

        var seen = 0
        try connection.streamRows("select n::text from generate_series(1, 1000000) as n") { _ in
            seen += 1
            return seen < 3
        }
        #expect(seen == 3)
        #expect(try connection.query("select 'still usable'").scalar == "still usable")
    }

    @Test("an error raised before the first row is thrown, with no row handed over")
    func errorBeforeFirstRow() throws {
        let connection = try TestDatabase.admin()
        var rows = 0
        let error = try #require(throws: PostgresError.self) {
            try connection.streamRows("select 1 / (n - 1) from generate_series(1, 3) as n order by 1") { _ in
                rows += 1
                return true
            }
        }
        #expect(error.sqlstate == "22012")
        #expect(rows == 0)
        #expect(try connection.query("select 1").scalar == "1")
    }
}
