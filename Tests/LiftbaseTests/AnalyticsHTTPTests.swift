import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("analytics over HTTP")
struct AnalyticsHTTPTests {
    @Test("every analytics, adaptive and substitution route answers through the router")
    func everyRoute() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "analytics")
            let session: [String: Any] = [
                "session_date": "2026-03-02", "started_at": "2026-03-02T18:00:00Z",
                "finished_at": "2026-03-02T19:00:00Z",
                "exercises": [
                    [
                        "exercise_name": "Barbell Bench Press",
                        "sets": [
                            ["reps": 10, "weight_kg": 40, "set_type": "warmup"],
                            ["reps": 5, "weight_kg": 100, "rpe": 8], ["reps": 5, "weight_kg": 100],
                        ],
                    ]
                ],
            ]
            let created = try await client.send(.post, "/training/sessions", session, token: token)
            #expect(created.status == .created)
            let exercises = try #require(created["exercises"] as? [[String: Any]])
            let bench = try #require(exercises.first?["exercise_id"] as? String)
            _ = try await client.send(
                .post,
                "/nutrition/entries",
                [
                    "name": "Dinner", "source": "manual", "entry_date": "2026-03-02",
                    "calories": 800, "protein_g": 50, "carbs_g": 80, "fat_g": 30,
                ],
                token: token
            )

            let volume = try await client.send(.get, "/analytics/volume?from=2026-03-02&to=2026-03-08", token: token)
            #expect(volume.status == .ok)
            let week = try #require((volume["weeks"] as? [[String: Any]])?.first)
            let sets = try #require(week["sets"] as? [String: Double])
            #expect(sets["chest"] == 2)
            #expect(sets["triceps"] == 1)
            #expect((week["flags"] as? [String: String])?["chest"] == "below_target")

            let e1rm = try await client.send(
                .get,
                "/analytics/e1rm?exercise_id=\(bench)&from=2026-03-01&to=2026-03-31",
                token: token
            )
            #expect(e1rm.status == .ok)
            #expect((e1rm["items"] as? [[String: Any]])?.first?["e1rm_kg"] as? Double == 123.3)
            #expect(e1rm["method"] as? String == "rpe_chart")

            let rpe = try await client.send(
                .get,
                "/analytics/rpe-distribution?exercise_id=\(bench)&from=2026-03-01&to=2026-03-31",
                token: token
            )
            #expect(rpe["sets_with_rpe"] as? Int == 1)
            #expect(rpe["sets_without_rpe"] as? Int == 1)

            let nutrition = try await client.send(
                .get,
                "/analytics/nutrition?bucket=week&from=2026-03-02&to=2026-03-08",
                token: token
            )
            #expect((nutrition["items"] as? [[String: Any]])?.first?["logged_days"] as? Int == 1)

            let workouts = try await client.send(
                .get,
                "/analytics/workouts?bucket=month&from=2026-03-01&to=2026-03-31",
                token: token
            )
            let month = try #require((workouts["items"] as? [[String: Any]])?.first)
            #expect(month["sessions"] as? Int == 1)
            #expect(month["volume_kg"] as? Double == 1000)
            #expect(month["duration_minutes"] as? Int == 60)

            let weight = try await client.send(.get, "/analytics/weight", token: token)
            #expect(weight.status == .ok)
            #expect((weight["items"] as? [Any])?.isEmpty == true)

            let expenditure = try await client.send(.get, "/adaptive/expenditure", token: token)
            #expect(expenditure.status == .ok)
            #expect(expenditure["confidence_level"] as? String == "insufficient")
            let recalculated = try await client.send(.post, "/adaptive/recalculate", token: token)
            #expect(recalculated.status == .conflict)
            #expect(recalculated.errorCode == "onboarding_required")

            let swaps = try await client.send(.get, "/exercises/\(bench)/substitutions?goal=strength", token: token)
            #expect(swaps.status == .ok)
            let first = try #require((swaps["items"] as? [[String: Any]])?.first)
            #expect(first["specificity_score"] as? Double == 1)

            #expect(
                try await client.send(.get, "/analytics/workouts?bucket=year", token: token).errorCode
                    == "invalid_bucket"
            )
            #expect(
                try await client.send(.get, "/analytics/volume?from=2026-02-30", token: token).status == .badRequest
            )
            #expect(
                try await client.send(.get, "/analytics/e1rm?exercise_id=bench", token: token).status == .badRequest
            )
            #expect(
                try await client.send(.get, "/exercises/\(bench)/substitutions?goal=power", token: token).errorCode
                    == "invalid_goal"
            )
            let unknown = try await client.send(.get, "/exercises/\(UUID().uuidString)/substitutions", token: token)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "exercise_not_found")
            #expect(try await client.send(.get, "/analytics/volume", token: "not-a-token").status == .unauthorized)
        }
    }
}
