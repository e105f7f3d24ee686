import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import Testing

/// The conditional headers reach SQL, and its answers reach the client: ETag, 304 with no
/// body, 412 with the current version, 400 for a header that is no entity tag; the change
/// feed shows a write of another device (docs/sync.md).
@Suite("versions and the change feed over HTTP")
struct SyncHTTPTests {
    @Test("ETag → If-None-Match is 304 without a body; a stale If-Match is 412 and writes nothing")
    func conditionalRequests() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "versions")
            let created = try await client.send(
                .post,
                "/training/sessions",
                TrainingHTTPTests.session(date: "2026-05-01"),
                token: token
            )
            let id = try #require(created["id"] as? String)
            let read = try await client.send(.get, "/training/sessions/\(id)", token: token)
            let etag = try #require(read.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))

            let unchanged = try await client.send(
                .get,
                "/training/sessions/\(id)",
                token: token,
                headers: [.ifNoneMatch: etag]
            )
            #expect(unchanged.status == .notModified)
            #expect(unchanged.text.isEmpty)
            #expect(unchanged.headers[.eTag] == etag)

            let renamed = try await client.send(
                .patch,
                "/training/sessions/\(id)",
                ["name": "Renamed"],
                token: token,
                headers: [.ifMatch: etag]
            )
            #expect(renamed.status == .ok)
            // The first device's version is stale now: its write is refused, and nothing changes.
            let stale = try await client.send(
                .patch,
                "/training/sessions/\(id)",
                ["name": "Lost update"],
                token: token,
                headers: [.ifMatch: etag]
            )
            #expect(stale.status == .preconditionFailed)
            #expect(stale.errorCode == "precondition_failed")
            #expect(stale["error", "etag"] as? String != etag)
            let now = try await client.send(.get, "/training/sessions/\(id)", token: token)
            #expect(now["name"] as? String == "Renamed")
            #expect(now.headers[.eTag] == stale["error", "etag"] as? String)

            let changed = try await client.send(
                .get,
                "/training/sessions/\(id)",
                token: token,
                headers: [.ifNoneMatch: etag]
            )
            #expect(changed.status == .ok)

            let garbage = try await client.send(
                .patch,
                "/training/sessions/\(id)",
                ["name": "Nope"],
                token: token,
                headers: [.ifMatch: "version 3"]
            )
            #expect(garbage.status == .badRequest)
        }
    }

    @Test("the feed starts with the current state, then gives a delete as a tombstone")
    func feed() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "feed")
            let created = try await client.send(
                .post,
                "/training/sessions",
                TrainingHTTPTests.session(date: "2026-05-01"),
                token: token
            )
            let id = try #require(created["id"] as? String)
            let first = try await client.send(.get, "/sync/changes", token: token)
            #expect(first.status == .ok)
            let changes = try #require(first["changes"] as? [[String: Any]])
            let session = try #require(changes.first { $0["entity"] as? String == "session" })
            #expect(session["id"] as? String == id)
            #expect(session["op"] as? String == "upsert")
            #expect((session["data"] as? [String: Any])?["name"] as? String == "Heavy day")
            let cursor = try #require(first["next_cursor"] as? String)

            #expect(try await client.send(.delete, "/training/sessions/\(id)", token: token).status == .noContent)
            let next = try await client.send(.get, "/sync/changes?cursor=\(cursor)", token: token)
            let after = try #require(next["changes"] as? [[String: Any]])
            #expect(after.map { $0["op"] as? String } == ["delete"])
            #expect(after.first?["id"] as? String == id)

            let garbage = try await client.send(.get, "/sync/changes?cursor=not-a-cursor", token: token)
            #expect(garbage.status == .badRequest)
        }
    }
}
