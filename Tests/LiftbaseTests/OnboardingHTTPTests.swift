import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("onboarding over HTTP")
struct OnboardingHTTPTests {
    nonisolated(unsafe) static let validBody: [String: Any] = [
        "goal_type": "cutting", "goal_rate_per_week": -0.5, "height_cm": 180, "weight_kg": 80, "age_years": 30,
        "sex": "male", "activity_level": "moderate", "timezone": "Pacific/Pago_Pago", "unit_system": "imperial",
    ]

    @Test("onboarding answers 201 with everything, and the metrics are there on the next request")
    func onboardingThenMetrics() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "onboard")
            let noGoal = try await client.send(.get, "/user/goals", token: token)
            #expect(noGoal.status == .ok)
            #expect(noGoal.text == "null")
            let onboarded = try await client.send(.post, "/onboarding/complete", Self.validBody, token: token)
            #expect(onboarded.status == .created)
            #expect(onboarded["snapshot", "calories"] as? Int == 2209)
            #expect(onboarded["metrics", "tdee"] as? Int == 2759)
            #expect(onboarded["profile", "unit_system"] as? String == "imperial")

            let today = try await client.send(.get, "/profile/metrics/today", token: token)
            #expect(today.status == .ok)
            #expect(today["metrics", "bmr"] as? Int == 1780)
            #expect(today["metrics", "computed_at"] as? String == onboarded["metrics", "computed_at"] as? String)
            #expect(try await client.send(.get, "/me", token: token)["needs_onboarding"] as? Bool == false)
            #expect(try await client.send(.get, "/user/goals", token: token)["goal_type"] as? String == "cutting")
            #expect(try await client.send(.get, "/user/profile", token: token)["height_cm"] as? Int == 180)

            let again = try await client.send(.post, "/onboarding/complete", Self.validBody, token: token)
            #expect(again.status == .conflict)
            #expect(again.errorCode == "onboarding_already_completed")
        }
    }

    @Test("onboarding with every optional member: display name, date of birth, body fat, time zone, units")
    func onboardingWithEveryMember() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "every-member")
            var body = Self.validBody
            body["age_years"] = nil
            body["date_of_birth"] = "1990-05-17"
            body["body_fat_pct"] = 18.5
            body["display_name"] = "  Sam Lifter "
            let onboarded = try await client.send(.post, "/onboarding/complete", body, token: token)
            #expect(onboarded.status == .created, "\(onboarded.text)")
            #expect(onboarded["profile", "date_of_birth"] as? String == "1990-05-17")
            let me = try await client.send(.get, "/me", token: token)
            #expect(me["user", "display_name"] as? String == "Sam Lifter")
            #expect(me["settings", "unit_system"] as? String == "imperial")
            #expect(me["settings", "timezone"] as? String == "Pacific/Pago_Pago")
            // The change feed names the profile, whose display name changed.
            let feed = try await client.send(.get, "/sync/changes", token: token)
            let entities = (feed["changes"] as? [[String: Any]] ?? []).compactMap { $0["entity"] as? String }
            #expect(Set(entities).isSuperset(of: ["goal", "settings", "profile", "body_metric", "targets"]))
        }
    }

    @Test("acknowledging is idempotent across requests; stale metrics are 409")
    func acknowledge() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "ack")
            let metrics = try await client.send(.post, "/onboarding/complete", Self.validBody, token: token)
            let body: [String: Any] = [
                "version": 1, "metrics_computed_at": try #require(metrics["metrics", "computed_at"] as? String),
            ]
            let first = try await client.send(.post, "/profile/metrics/acknowledge", body, token: token)
            #expect(first.status == .ok)
            try await Task.sleep(for: .milliseconds(20))
            let second = try await client.send(.post, "/profile/metrics/acknowledge", body, token: token)
            #expect(
                second["acknowledgement", "acknowledged_at"] as? String == first["acknowledgement", "acknowledged_at"]
                    as? String
            )

            _ = try await client.send(.post, "/user/metrics", ["weight_kg": 79], token: token)
            let stale = try await client.send(.post, "/profile/metrics/acknowledge", body, token: token)
            #expect(stale.status == .conflict)
            #expect(stale.errorCode == "metrics_changed")
            #expect(
                try await client.send(.get, "/profile/metrics/today", token: token)["acknowledged"] as? Bool == false
            )
        }
    }

    @Test("an invalid onboarding is 422 listing every bad field, and writes nothing")
    func invalidOnboarding() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "invalid")
            var body = Self.validBody
            body["height_cm"] = 99
            body["weight_kg"] = 301
            body["timezone"] = "Moon/Base"
            let answer = try await client.send(.post, "/onboarding/complete", body, token: token)
            #expect(answer.status == .unprocessableContent)
            #expect(
                answer["error", "fields"] as? [String: String] == [
                    "height_cm": "must be between 100 and 250", "weight_kg": "must be between 30 and 300",
                    "timezone": "must be an IANA time zone name such as Europe/Berlin",
                ]
            )
            #expect(
                try await client.send(.get, "/profile/metrics/today", token: token).errorCode == "metrics_not_found"
            )
            #expect(try await client.send(.get, "/user/metrics", token: token)["items"] as? [Any] != nil)
            #expect((try await client.send(.get, "/user/metrics", token: token)["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("concurrent onboarding of one user: exactly one 201")
    func concurrentOnboarding() async throws {
        try await withTestClient(poolSize: 6) { client in
            let token = try await registerUser(client, "race")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await client.send(.post, "/onboarding/complete", Self.validBody, token: token).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [201, 409, 409, 409, 409, 409])
            let admin = try await AsyncConnection.open()
            let userID = try await admin.query(
                "select user_id from auth.sessions where token_hash = sha256(convert_to($1, 'UTF8'))",
                [token]
            ).scalar
            // The user's id as a value, not a join: Citus plans no subquery of its users'
            // tables correlated with a row of auth.sessions (a reference table).
            let counts = try await admin.query(
                """
                select (select count(*) from app.health_metrics where user_id = $1::uuid),
                       (select count(*) from app.body_metrics where user_id = $1::uuid)
                """,
                [userID]
            ).rows
            #expect(counts == [["1", "1"]])
        }
    }

    @Test("body-stats history pages newest first with limit and cursor; a bad limit is 400")
    func historyPaging() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "pages")
            _ = try await client.send(.post, "/onboarding/complete", Self.validBody, token: token)
            for weight in [79, 78, 77, 76] {
                _ = try await client.send(.post, "/user/metrics", ["weight_kg": weight], token: token)
            }
            let first = try await client.send(.get, "/user/metrics?limit=2", token: token)
            #expect((first["items"] as? [[String: Any]])?.compactMap { $0["weight_kg"] as? Int } == [76, 77])
            let cursor = try #require(first["next_cursor"] as? String)
            let second = try await client.send(.get, "/user/metrics?limit=2&cursor=\(cursor)", token: token)
            #expect((second["items"] as? [[String: Any]])?.compactMap { $0["weight_kg"] as? Int } == [78, 79])
            let third = try await client.send(
                .get,
                "/user/metrics?limit=2&cursor=\(try #require(second["next_cursor"] as? String))",
                token: token
            )
            #expect((third["items"] as? [[String: Any]])?.compactMap { $0["weight_kg"] as? Int } == [80])
            #expect(third["next_cursor"] is NSNull)

            let bad = try await client.send(.get, "/user/metrics?limit=500", token: token)
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_parameter")
            #expect(
                (try await client.send(.get, "/profile/metrics/history", token: token)["items"] as? [Any])?.count == 5
            )
        }
    }

    @Test("targets: computed, overridden, cleared")
    func targets() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "targets")
            #expect(try await client.send(.get, "/user/targets", token: token).errorCode == "targets_not_found")
            _ = try await client.send(.post, "/onboarding/complete", Self.validBody, token: token)
            #expect(try await client.send(.get, "/user/targets", token: token)["calories"] as? Int == 2209)
            let overridden = try await client.send(.put, "/user/targets", ["calories": 2000], token: token)
            #expect(overridden["calories"] as? Int == 2000)
            #expect(overridden["source", "calories"] as? String == "override")
            let invalid = try await client.send(.put, "/user/targets", ["calories": 100, "fat_g": -1], token: token)
            #expect(Set((invalid["error", "fields"] as? [String: String] ?? [:]).keys) == ["calories", "fat_g"])
            let cleared = try await client.send(.put, "/user/targets", ["calories": NSNull()], token: token)
            #expect(cleared["calories"] as? Int == 2209)
        }
    }
}
