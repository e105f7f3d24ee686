import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import PQ
import Testing

/// The change feed under concurrent writers (docs/sync.md, "Why it cannot skip a change"):
/// versions are handed out before commit, so the feed must never let a reader move past a
/// version whose transaction has not committed yet.
@Suite("the change feed under concurrent writers")
struct SyncConcurrencyTests {
    static func entry(_ name: String, calories: Int = 100) -> [String: Any] {
        [
            "name": name, "source": "manual", "entry_date": "2026-03-02",
            "calories": calories, "protein_g": 5, "carbs_g": 10, "fat_g": 3,
        ]
    }

    @Test("a change that has its version but has not committed is never skipped: a later write waits for it")
    func uncommittedVersionIsNotSkipped() async throws {
        let application = "liftbase_feed_" + TestDatabase.uniqueSuffix()
        let url = try TestDatabase.url() + " application_name=\(application)"
        try await withTestClient(poolSize: 3, databaseURL: url) { client in
            let token = try await registerUser(client, "pending")
            let start = try await client.send(.get, "/sync/changes", token: token)
            var cursor = try #require(start["next_cursor"] as? String)

            // A slow device's write: its change has taken its version; its transaction is open.
            let slow = try await AsyncConnection.open()
            let watcher = try await AsyncConnection.open()
            try await slow.execute("begin; set local role liftbase_api")
            let body = String(decoding: try JSONSerialization.data(withJSONObject: Self.entry("Slow")), as: UTF8.self)
            let slowAnswer = try #require(
                try await slow.query(
                    "select r::text from api.entry_create($1, app.request_body($2, 'entry_create'), '{}'::jsonb) as r",
                    [token, body]
                ).scalar
            )
            let slowID = try #require(
                (try JSONSerialization.jsonObject(with: Data(slowAnswer.utf8)) as? [String: Any])?["id"] as? String
            )

            // Another device's write starts later; it must not commit ahead of the slow one.
            async let fast = client.send(.post, "/nutrition/entries", Self.entry("Fast"), token: token)
            try await TestDatabase.waitForLockWait(
                application: application,
                on: watcher,
                otherwise: "the later write never waited for the open one: it could commit ahead of an earlier version"
            )

            // A reader meanwhile sees neither, and its cursor stays before both.
            let during = try await client.send(.get, "/sync/changes?cursor=\(cursor)", token: token)
            #expect((during["changes"] as? [Any])?.isEmpty == true)
            cursor = during["next_cursor"] as? String ?? cursor

            try await slow.execute("commit")
            let fastID = try #require(try await fast["id"] as? String)
            let after = try await client.send(.get, "/sync/changes?cursor=\(cursor)", token: token)
            let changes = try #require(after["changes"] as? [[String: Any]])
            #expect(changes.map { $0["id"] as? String } == [slowID, fastID])
        }
    }

    @Test("four devices write, edit and delete at once while a fifth pages the feed: its copy ends equal to the server")
    func concurrentWritersAndReader() async throws {
        try await withTestClient(poolSize: 5) { client in
            let token = try await registerUser(client, "devices")
            let writers = 4
            let operationsPerWriter = 40
            let copy = FeedCopy()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var generator = SeededGenerator(seed: UInt64(20_261_124 + writer))
                        var mine: [String] = []
                        for step in 0..<operationsPerWriter {
                            let roll = Int.random(in: 0..<10, using: &generator)
                            if mine.isEmpty || roll < 5 {
                                let created = try await client.send(
                                    .post,
                                    "/nutrition/entries",
                                    Self.entry("Device \(writer) step \(step)"),
                                    token: token
                                )
                                #expect(created.status == .created)
                                if let id = created["id"] as? String { mine.append(id) }
                            } else if roll < 8 {
                                let id = mine[Int.random(in: 0..<mine.count, using: &generator)]
                                let edited = try await client.send(
                                    .patch,
                                    "/nutrition/entries/\(id)",
                                    ["calories": 100 + step],
                                    token: token
                                )
                                #expect(edited.status == .ok)
                            } else {
                                let id = mine.remove(at: Int.random(in: 0..<mine.count, using: &generator))
                                #expect(
                                    try await client.send(.delete, "/nutrition/entries/\(id)", token: token).status
                                        == .noContent
                                )
                            }
                        }
                    }
                }
                group.addTask {
                    // The reader pages while the writers run (writers end the group's wait).
                    while !copy.writersDone {
                        try await copy.pull(client: client, token: token)
                    }
                }
                var finished = 0
                while finished < writers {
                    try await group.next()
                    finished += 1
                }
                copy.writersDone = true
                try await group.waitForAll()
            }
            // Catch up to the end, then compare with the server's state read afresh.
            try await copy.pull(client: client, token: token)
            let fresh = FeedCopy()
            try await fresh.pull(client: client, token: token)
            #expect(copy.pages > 10, "the reader paged while the writers wrote")
            #expect(copy.versionsOutOfOrder == 0)
            #expect(!fresh.entries.isEmpty)
            #expect(copy.entries == fresh.entries)
            #expect(copy.entries.count < 200, "the diary's one page holds them all")
            let listed = try await client.send(.get, "/nutrition/entries?date=2026-03-02&limit=200", token: token)
            let ids = Set(((listed["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            #expect(ids == Set(copy.entries.keys))
        }
    }
}

/// A device's local copy of the user's diary entries, built only from the feed: id →
/// (version, calories). It pages with a small limit, following `next_cursor`.
private final class FeedCopy: @unchecked Sendable {
    private let lock = NSLock()
    private var cursor: String?
    private var stored: [String: Entry] = [:]
    private var outOfOrder = 0
    private var pageCount = 0
    private var done = false

    struct Entry: Equatable {
        var version: Int
        var calories: Double?
    }

    var entries: [String: Entry] { lock.withLock { stored } }
    var versionsOutOfOrder: Int { lock.withLock { outOfOrder } }
    var pages: Int { lock.withLock { pageCount } }
    var writersDone: Bool {
        get { lock.withLock { done } }
        set { lock.withLock { done = newValue } }
    }

    /// Pulls pages until the feed says there is no more.
    func pull(client: any TestClientProtocol, token: String) async throws {
        while true {
            let query = lock.withLock { cursor.map { "&cursor=\($0)" } ?? "" }
            let page = try await client.send(.get, "/sync/changes?limit=5" + query, token: token)
            #expect(page.status == .ok)
            let changes = (page["changes"] as? [[String: Any]]) ?? []
            let more = page["has_more"] as? Bool ?? false
            let next = page["next_cursor"] as? String
            lock.withLock {
                pageCount += 1
                for change in changes where change["entity"] as? String == "diary_entry" {
                    guard let id = change["id"] as? String, let version = (change["version"] as? NSNumber)?.intValue
                    else { continue }
                    if let known = stored[id], known.version >= version { outOfOrder += 1 }
                    if change["op"] as? String == "delete" {
                        stored[id] = nil
                    } else {
                        let calories = ((change["data"] as? [String: Any])?["calories"] as? NSNumber)?.doubleValue
                        stored[id] = Entry(version: version, calories: calories)
                    }
                }
                if let next { cursor = next }
            }
            if !more { return }
        }
    }
}

/// A small deterministic generator (SplitMix64): each writer's choices repeat run to run;
/// only their interleaving varies.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
