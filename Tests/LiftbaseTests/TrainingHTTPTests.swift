import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("training over HTTP")
struct TrainingHTTPTests {
    static func session(date: String, clientID: String? = nil) -> [String: Any] {
        var body: [String: Any] = [
            "session_date": date, "name": "Heavy day",
            "exercises": [
                [
                    "exercise_name": "Barbell Squat",
                    "sets": [["reps": 5, "weight_kg": 140, "rpe": 8], ["reps": 5, "weight_kg": 140]],
                ],
                [
                    "exercise_name": "My Sled Drag",
                    "sets": [["reps": 1, "weight_kg": 80, "set_type": "working", "tempo": "1-0-1-0"]],
                ],
            ],
        ]
        if let clientID { body["client_id"] = clientID }
        return body
    }

    @Test("a plan is saved, renamed (If-Match holds), listed under its new name, and deleted")
    func planRename() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "plans")
            let created = try await client.send(
                .post,
                "/plans",
                ["name": "Push day", "exercises": [["exercise_name": "Barbell Bench Press", "sets": 3, "reps": 8]]],
                token: token
            )
            #expect(created.status == .created, "\(created.text)")
            let id = try #require(created["id"] as? String)
            let read = try await client.send(.get, "/plans/\(id)", token: token)
            let etag = try #require(read.headers[.eTag])
            let renamed = try await client.send(
                .patch,
                "/plans/\(id)",
                ["name": "  Push day A "],
                token: token,
                headers: [.ifMatch: etag]
            )
            #expect(renamed.status == .ok, "\(renamed.text)")
            #expect(renamed["name"] as? String == "Push day A")
            let stale = try await client.send(
                .patch,
                "/plans/\(id)",
                ["name": "Lost"],
                token: token,
                headers: [.ifMatch: etag]
            )
            #expect(stale.status == .preconditionFailed)
            let listed = try await client.send(.get, "/plans", token: token)
            #expect(listed.text.contains("Push day A") && !listed.text.contains("Lost"))
            #expect(try await client.send(.delete, "/plans/\(id)", token: token).status == .noContent)
            #expect(try await client.send(.get, "/plans/\(id)", token: token).status == .notFound)
        }
    }

    @Test("create with client_id is idempotent: 201, then 200 with the same session")
    func idempotentCreate() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "sessions")
            let clientID = UUID().uuidString.lowercased()
            let first = try await client.send(
                .post,
                "/training/sessions",
                Self.session(date: "2026-05-01", clientID: clientID),
                token: token
            )
            #expect(first.status == .created)
            let second = try await client.send(
                .post,
                "/training/sessions",
                Self.session(date: "2026-05-01", clientID: clientID),
                token: token
            )
            #expect(second.status == .ok)
            #expect(second["id"] as? String == first["id"] as? String)
            let exercises = try #require(first["exercises"] as? [[String: Any]])
            #expect(exercises.map { $0["exercise_name"] as? String } == ["Barbell Squat", "My Sled Drag"])
            #expect(exercises[0]["exercise_id"] is String)
            #expect(exercises[1]["exercise_id"] is NSNull)
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect((list["items"] as? [Any])?.count == 1)
        }
    }

    @Test("sessions list newest first with a cursor; another in progress is 409 with its id")
    func listAndInProgress() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "list")
            for day in ["2026-05-01", "2026-05-03", "2026-05-02"] {
                _ = try await client.send(.post, "/training/sessions", Self.session(date: day), token: token)
            }
            let page = try await client.send(.get, "/training/sessions?limit=2", token: token)
            #expect(
                (page["items"] as? [[String: Any]])?.compactMap { $0["session_date"] as? String } == [
                    "2026-05-03", "2026-05-02",
                ]
            )
            let cursor = try #require(page["next_cursor"] as? String)
            let rest = try await client.send(.get, "/training/sessions?limit=2&cursor=\(cursor)", token: token)
            #expect((rest["items"] as? [[String: Any]])?.compactMap { $0["session_date"] as? String } == ["2026-05-01"])

            let started = try await client.send(.post, "/training/sessions", ["status": "in_progress"], token: token)
            #expect(started.status == .created)
            let resumable = try await client.send(.get, "/training/sessions/in-progress", token: token)
            #expect(resumable["id"] as? String == started["id"] as? String)
            #expect(resumable["resume_timestamp"] is String)
            #expect(
                try await client.send(.get, "/training/sessions/in-progress", token: "not-a-token").status
                    == .unauthorized
            )
            let blocked = try await client.send(.post, "/training/sessions", ["status": "in_progress"], token: token)
            #expect(blocked.status == .conflict)
            #expect(blocked.errorCode == "session_in_progress")
            #expect(blocked["error", "session_id"] as? String == started["id"] as? String)

            let last = try await client.send(.get, "/training/sessions/last", token: token)
            #expect(last["session_date"] as? String == "2026-05-03")
            let copy = try await client.send(
                .post,
                "/training/sessions/\(try #require(last["id"] as? String))/duplicate",
                token: token
            )
            #expect(copy.status == .created)
            #expect((copy["exercises"] as? [Any])?.count == 2)
            #expect(
                try await client.send(.get, "/training/templates/nope", token: token).errorCode == "template_not_found"
            )
            #expect((try await client.send(.get, "/training/templates", token: token)["items"] as? [Any])?.count == 6)

            let plan = try await client.send(
                .post,
                "/plans",
                ["name": "Garage", "exercises": [["name": "Goblet Squat", "sets": 3, "reps": 10]]],
                token: token
            )
            #expect(plan.status == .created)
            let plans = try await client.send(.get, "/plans", token: token)
            #expect((plans["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Garage"])
            #expect(try await client.send(.get, "/plans", token: "not-a-token").status == .unauthorized)
            _ = try await client.send(.put, "/equipment/selection", ["equipment_ids": ["kettlebells"]], token: token)
            let setup = try await client.send(.get, "/setup", token: token)
            #expect(setup["plan_count"] as? Int == 1)
            #expect(setup["equipment_count"] as? Int == 1)
        }
    }
}

@Suite("exercise import CLI")
struct ExerciseImportCLITests {
    @Test("imports a free-exercise-db file and adds nothing when re-run")
    func importTwice() async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let file = NSTemporaryDirectory() + "exercises-\(TestDatabase.uniqueSuffix()).json"
            try """
            [{"id": "Landmine_Row", "name": "Landmine Row", "force": "pull", "level": "beginner", "mechanic": "compound",
              "equipment": "barbell", "primaryMuscles": ["middle back"], "secondaryMuscles": ["biceps"],
              "instructions": ["Row."], "category": "strength", "images": []},
             {"id": "Pullups", "name": "pull-up", "force": "pull", "level": "beginner", "mechanic": "compound",
              "equipment": "body only", "primaryMuscles": ["lats"], "secondaryMuscles": ["biceps"],
              "instructions": ["Pull."], "category": "strength", "images": []}]
            """.write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let first = try await runCLIOffThePool(["import", "exercises", file, "--database-url", url])
            #expect(first.status == 0)
            #expect(first.stdout.contains("imported: 1 new, 1 updated, 0 skipped"))
            let again = try await runCLIOffThePool(["import", "exercises", file, "--database-url", url])
            #expect(again.stdout.contains("imported: 0 new, 2 updated, 0 skipped"))
            #expect(
                try await runCLIOffThePool(["import", "exercises", "/nonexistent.json", "--database-url", url]).status
                    == 1
            )
        }
    }
}
