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

    @Test("the channel holds at most its capacity: the producer waits for the reader")
    func channelBackPressure() async throws {
        let channel = RowChannel(capacity: 2)
        let sent = LockedCounter()
        let producer = Thread {
            for index in 0..<10 {
                guard channel.send("\(index)") else { break }
                sent.increment()
            }
            channel.finish(nil)
        }
        producer.start()
        try await Task.sleep(for: .milliseconds(200))
        // Two in the buffer, the third send blocked: nothing was read yet.
        #expect(sent.value == 2)
        var received: [String] = []
        while let chunk = try await channel.next() { received.append(chunk) }
        #expect(received == (0..<10).map(String.init))
    }

    @Test("a reader that goes away stops the producer")
    func readerGone() async throws {
        let channel = RowChannel(capacity: 1)
        #expect(channel.send("first"))
        channel.cancel()
        #expect(!channel.send("second"))
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
