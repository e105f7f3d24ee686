import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// One session of every kind of set people log (docs/training.md): a superset of two lifts
/// with its rest after the round, a plank held for time, and a run over a distance, through
/// create, read, duplicate, a plan and a program.
@Suite("a mixed session over HTTP")
struct MixedSessionHTTPTests {
    static var exercises: [[String: Any]] {
        [
            [
                "exercise_name": "Barbell Bench Press", "group": 1, "group_rest_seconds": 120,
                "sets": [["reps": 8, "weight_kg": 80], ["reps": 8, "weight_kg": 80]],
            ],
            [
                "exercise_name": "Barbell Row", "group": 1, "group_rest_seconds": 120,
                "sets": [["reps": 10, "weight_kg": 60], ["reps": 10, "weight_kg": 60]],
            ],
            ["exercise_name": "Plank", "sets": [["duration_seconds": 60], ["duration_seconds": 45]]],
            ["exercise_name": "Treadmill Run", "sets": [["duration_seconds": 1500, "distance_m": 5000]]],
        ]
    }

    /// What a session answer says of each exercise: name, group, rest after the group, and
    /// every set's measures (weight_kg/reps/duration_seconds/distance_m; "-" for null).
    static func shape(_ session: APIAnswer) throws -> [String] {
        let exercises = try #require(session["exercises"] as? [[String: Any]])
        func text(_ value: Any?) -> String {
            switch value {
            case let number as NSNumber: return "\(number)"
            default: return "-"
            }
        }
        return try exercises.map { exercise in
            let sets = try #require(exercise["sets"] as? [[String: Any]])
            let measures = sets.map { set in
                ["weight_kg", "reps", "duration_seconds", "distance_m"].map { text(set[$0]) }.joined(separator: "/")
            }
            return
                "\(exercise["exercise_name"] as? String ?? "?") g\(text(exercise["group"])) r\(text(exercise["group_rest_seconds"])): "
                + measures.joined(separator: ", ")
        }
    }

    static let logged = [
        "Barbell Bench Press g1 r120: 80/8/-/-, 80/8/-/-",
        "Barbell Row g1 r120: 60/10/-/-, 60/10/-/-",
        "Plank g- r-: -/-/60/-, -/-/45/-",
        "Treadmill Run g- r-: -/-/1500/5000",
    ]

    @Test("create, read and duplicate keep the superset, the plank's time and the run's distance")
    func createReadDuplicate() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "mixed")
            let created = try await client.send(
                .post,
                "/training/sessions",
                ["session_date": "2026-05-04", "name": "Mixed", "exercises": Self.exercises],
                token: token
            )
            #expect(created.status == .created)
            #expect(try Self.shape(created) == Self.logged)
            let id = try #require(created["id"] as? String)

            let read = try await client.send(.get, "/training/sessions/\(id)", token: token)
            #expect(try Self.shape(read) == Self.logged)

            let copy = try await client.send(.post, "/training/sessions/\(id)/duplicate", token: token)
            #expect(copy.status == .created)
            #expect(copy["id"] as? String != id)
            #expect(try Self.shape(copy) == Self.logged)

            // A set that does not fit its exercise is refused on its field, and nothing is written.
            var wrong = Self.exercises
            wrong[2] = ["exercise_name": "Plank", "sets": [["reps": 12]]]
            let refused = try await client.send(
                .post,
                "/training/sessions",
                ["session_date": "2026-05-05", "exercises": wrong],
                token: token
            )
            #expect(refused.status == .unprocessableContent)
            #expect(
                (refused["error", "fields"] as? [String: String])?.keys.sorted() == [
                    "exercises[2].sets[0].duration_seconds", "exercises[2].sets[0].reps",
                ]
            )
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect((list["items"] as? [Any])?.count == 2)
        }
    }

    @Test("a plan of the four keeps its groups and targets by type, and using it starts sets that fit")
    func plan() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "mixed-plan")
            let created = try await client.send(
                .post,
                "/plans",
                [
                    "name": "Mixed",
                    "exercises": [
                        [
                            "exercise_name": "Barbell Bench Press", "sets": 3, "reps": 8, "reps_max": 12,
                            "weight_kg": 80, "group": 1, "group_rest_seconds": 120,
                        ],
                        [
                            "exercise_name": "Barbell Row", "sets": 3, "reps": 10, "weight_kg": 60, "group": 1,
                            "group_rest_seconds": 120,
                        ],
                        ["exercise_name": "Plank", "sets": 2, "duration_seconds": 60],
                        ["exercise_name": "Treadmill Run", "sets": 1, "duration_seconds": 1500, "distance_m": 5000],
                    ],
                ],
                token: token
            )
            #expect(created.status == .created)
            let id = try #require(created["id"] as? String)
            let plan = try await client.send(.get, "/plans/\(id)", token: token)
            let planned = try #require(plan["exercises"] as? [[String: Any]])
            #expect(planned.map { $0["group"] as? Int } == [1, 1, nil, nil])
            #expect(planned[0]["reps_max"] as? Int == 12)
            #expect(planned[2]["duration_seconds"] as? Int == 60)
            #expect(planned[2]["reps"] is NSNull)
            #expect(planned[3]["distance_m"] as? Double == 5000)

            let session = try await client.send(.post, "/plans/\(id)/use", token: token)
            #expect(session.status == .created)
            #expect(
                try Self.shape(session) == [
                    "Barbell Bench Press g1 r120: 80/8/-/-, 80/8/-/-, 80/8/-/-",
                    "Barbell Row g1 r120: 60/10/-/-, 60/10/-/-, 60/10/-/-",
                    "Plank g- r-: -/-/60/-, -/-/60/-",
                    "Treadmill Run g- r-: -/-/1500/5000",
                ]
            )
        }
    }

    @Test("a program session logged with the four keeps them, and records read them by type")
    func program() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "mixed-program")
            let program = try await client.send(
                .post,
                "/program",
                ["goal": "hypertrophy", "training_age": "novice", "days_per_week": 3],
                token: token
            )
            #expect(program.status == .created)
            let next = try await client.send(.get, "/program/next", token: token)
            let planned = try #require(next["id"] as? String)
            let logged = try await client.send(
                .post,
                "/program/sessions/\(planned)/log",
                ["session_date": "2026-05-06", "exercises": Self.exercises],
                token: token
            )
            #expect(logged.status == .created)
            let sessionID = try #require(logged["session", "id"] as? String)
            let read = try await client.send(.get, "/training/sessions/\(sessionID)", token: token)
            #expect(try Self.shape(read) == Self.logged)

            let records = try await client.send(.get, "/analytics/records", token: token)
            #expect(records.status == .ok)
            let items = try #require(records["items"] as? [[String: Any]])
            let byName = Dictionary(
                uniqueKeysWithValues: items.compactMap { item in
                    (item["exercise_name"] as? String).map { ($0, item) }
                }
            )
            #expect(Set(byName.keys) == ["Barbell Bench Press", "Barbell Row", "Plank", "Treadmill Run"])
            #expect((byName["Plank"]?["longest"] as? [String: Any])?["duration_seconds"] as? Int == 60)
            #expect((byName["Treadmill Run"]?["farthest"] as? [String: Any])?["distance_m"] as? Double == 5000)
            #expect(byName["Plank"]?["best_e1rm"] is NSNull)
            #expect(byName["Barbell Bench Press"]?["best_e1rm"] is [String: Any])
        }
    }
}
