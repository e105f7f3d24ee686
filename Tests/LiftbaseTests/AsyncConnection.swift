import Foundation
import PQ

/// A libpq connection for async tests. `Connection`'s calls block their thread, so they are
/// unavailable from async code: each call here runs on a thread of its own, one at a time,
/// off the cooperative pool the suite's tests share.
final class AsyncConnection: @unchecked Sendable {
    private let connection: Connection
    /// A libpq connection serves one thread at a time.
    private let oneCallAtATime = NSLock()

    private init(_ connection: Connection) { self.connection = connection }

    /// A connection to `conninfo`, by default the superuser's to the test database.
    static func open(_ conninfo: String? = nil) async throws -> AsyncConnection {
        let conninfo = try conninfo ?? TestDatabase.url()
        return try await TestDatabase.offThePool { AsyncConnection(try Connection(conninfo)) }
    }

    @discardableResult
    func execute(_ sql: String) async throws -> QueryResult {
        try await run { try $0.execute(sql) }
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) async throws -> QueryResult {
        try await run { try $0.query(sql, parameters) }
    }

    /// Runs `sql` without waiting for it: for a `defer` (which cannot await) that rolls back
    /// or drops what the test made. Later calls wait for it.
    func executeAfterwards(_ sql: String) {
        Thread.detachNewThread { self.oneCallAtATime.withLock { _ = try? self.connection.execute(sql) } }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await TestDatabase.offThePool { try self.oneCallAtATime.withLock { try work(self.connection) } }
    }
}

extension TestDatabase {
    /// One statement on a connection of its own to the test database, as the superuser.
    static func adminQuery(_ sql: String, _ parameters: [String?] = []) async throws -> QueryResult {
        try await offThePool {
            let admin = try Connection(try url())
            defer { admin.close() }
            return try admin.query(sql, parameters)
        }
    }
}
