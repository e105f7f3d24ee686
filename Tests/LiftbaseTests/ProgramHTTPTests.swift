import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("programs over HTTP")
struct ProgramHTTPTests {
    /// The planned sets of a session as logged sets: every target hit, at `weight` when the
    /// target has no load yet.
    static func logBody(_ next: APIAnswer, weight: Double) throws -> [String: Any] {
        let exercises = try #require(next["exercises"] as? [[String: Any]])
        return [
            "session_date": "2026-06-01",
            "exercises": try exercises.map { exercise in
                let sets = try #require(exercise["sets"] as? [[String: Any]])
                return [
                    "exercise_id": try #require(exercise["exercise_id"] as? String),
                    "sets": sets.map { set in
                        [
                            "reps": set["reps"] ?? 5, "weight_kg": (set["weight_kg"] as? Double) ?? weight, "rpe": 7,
                            "set_type": "working",
                        ]
                    },
                ]
            },
        ]
    }

    @Test("create → next → log → next → skip, and the failures around them")
    func walkThrough() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "program")
            #expect(try await client.send(.get, "/program", token: token).errorCode == "program_not_found")

            let invalid = try await client.send(
                .post,
                "/program",
                ["goal": "power", "days_per_week": 9, "split": ["arms"]],
                token: token
            )
            #expect(invalid.status == .unprocessableContent)
            #expect(
                (invalid["error", "fields"] as? [String: String])?.keys.sorted() == [
                    "days_per_week", "goal", "split", "training_age",
                ]
            )

            let created = try await client.send(
                .post,
                "/program",
                ["goal": "strength", "training_age": "novice", "days_per_week": 3],
                token: token
            )
            #expect(created.status == .created)
            #expect(created["split"] as? [String] == ["full_body"])
            #expect((created["blocks"] as? [[String: Any]])?.first?["name"] as? String == "Linear progression")
            #expect(created["current", "week"] as? Int == 1)

            let next = try await client.send(.get, "/program/next", token: token)
            #expect(next.status == .ok)
            let sessionID = try #require(next["id"] as? String)
            let squat = try #require(
                (next["exercises"] as? [[String: Any]])?.first { $0["exercise_name"] as? String == "Barbell Squat" }
            )
            #expect(squat["strategy"] as? String == "linear")
            #expect((squat["sets"] as? [[String: Any]])?.allSatisfy { $0["reps"] as? Int == 5 } == true)

            let logged = try await client.send(
                .post,
                "/program/sessions/\(sessionID)/log",
                try Self.logBody(next, weight: 100),
                token: token
            )
            #expect(logged.status == .created)
            #expect(logged["session", "status"] as? String == "completed")
            // Every target hit at 100 kg: the squat (lower body) goes up 5 kg next session.
            let following = try #require(logged["next"] as? [String: Any])
            let nextSquat = try #require(
                (following["exercises"] as? [[String: Any]])?.first {
                    $0["exercise_name"] as? String == "Barbell Squat"
                }
            )
            #expect((nextSquat["sets"] as? [[String: Any]])?.first?["weight_kg"] as? Double == 105)
            let again = try await client.send(
                .post,
                "/program/sessions/\(sessionID)/log",
                try Self.logBody(next, weight: 100),
                token: token
            )
            #expect(again.status == .conflict)

            let second = try await client.send(.get, "/program/next", token: token)
            let secondID = try #require(second["id"] as? String)
            #expect(secondID != sessionID)
            #expect(second["slot"] as? Int == 2)

            let skipped = try await client.send(.post, "/program/sessions/\(secondID)/skip", token: token)
            #expect(skipped.status == .ok)
            #expect(skipped["outcome"] as? String == "shifted")
            #expect(skipped["next", "id"] as? String == secondID)
            #expect(skipped["next", "slot"] as? Int == 3)

            let program = try await client.send(.get, "/program", token: token)
            #expect(program["adherence", "score"] as? Double == 0.5)
            let timeline = try await client.send(.get, "/analytics/timeline", token: token)
            #expect((timeline["items"] as? [[String: Any]])?.count == 1)

            let stranger = try await registerUser(client, "stranger")
            #expect(
                try await client.send(.post, "/program/sessions/\(secondID)/skip", token: stranger).errorCode
                    == "program_session_not_found"
            )
            #expect(
                try await client.send(.post, "/program/sessions/not-an-id/log", [:], token: token).status == .notFound
            )
            #expect(try await client.send(.get, "/program/next?mode=lazy", token: token).status == .badRequest)
            #expect(try await client.send(.get, "/program/next", token: "not-a-token").status == .unauthorized)
        }
    }
}
