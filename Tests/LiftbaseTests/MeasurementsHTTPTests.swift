import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Body measurements over HTTP (docs/health.md): a weigh-in corrected and deleted moves the
/// targets and the weight trend in the same request, entries of standard measures and own
/// types, their series, and conditional writes. Every answer is checked against the contract
/// by the test client.
@Suite("body measurements over HTTP")
struct MeasurementsHTTPTests {
    @Test("a mistyped weigh-in corrected, then deleted: targets and the day's weight follow in the same request")
    func correctAndDeleteWeighIn() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "weigh-in-fix")
            _ = try await client.send(.post, "/onboarding/complete", OnboardingHTTPTests.validBody, token: token)
            let typo = try await client.send(
                .post,
                "/user/metrics",
                ["weight_kg": 90, "source": "scale"],
                token: token
            )
            #expect(typo.status == .created, "\(typo.text)")
            #expect(typo["entry", "source"] as? String == "scale")
            #expect(typo["snapshot", "calories"] as? Int == 2364)
            let id = try #require(typo["entry", "id"] as? Int)

            let fixed = try await client.send(.patch, "/user/metrics/\(id)", ["weight_kg": 81], token: token)
            #expect(fixed.status == .ok, "\(fixed.text)")
            #expect(fixed["snapshot", "calories"] as? Int == 2225)
            #expect(fixed["entry", "weight_kg"] as? Int == 81)
            #expect(fixed["entry", "updated_at"] as? String != nil)
            let weights = try await client.send(.get, "/analytics/weight", token: token)
            #expect((weights["items"] as? [[String: Any]])?.first?["weight_kg"] as? Double == 80.5)

            #expect(try await client.send(.delete, "/user/metrics/\(id)", token: token).status == .noContent)
            #expect(try await client.send(.get, "/user/targets", token: token)["calories"] as? Int == 2209)
            let left = try #require(
                try await client.send(.get, "/user/metrics", token: token)["items"] as? [[String: Any]]
            )
            #expect(left.count == 1)
            let last = try await client.send(
                .delete,
                "/user/metrics/\(try #require(left.first?["id"] as? Int))",
                token: token
            )
            #expect(last.status == .conflict)
            #expect(last.errorCode == "last_weigh_in")
            #expect(
                try await client.send(.patch, "/user/metrics/999999999", ["weight_kg": 70], token: token).status
                    == .notFound
            )
            #expect(try await client.send(.delete, "/user/metrics/not-a-number", token: token).status == .notFound)
        }
    }

    @Test("measurements of standard measures and own types: ranges, list, series, correction, If-Match, delete")
    func measurements() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "measures")
            _ = try await client.send(.post, "/onboarding/complete", OnboardingHTTPTests.validBody, token: token)
            let vocabulary = try await client.send(.get, "/user/measures", token: token)
            let ids = (vocabulary["measures"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.count == 17)
            #expect(ids.prefix(3) == ["weight", "body_fat", "height"])

            let refused = try await client.send(
                .post,
                "/user/measurements",
                ["measure": "waist", "value": 400],
                token: token
            )
            #expect(refused.status == .unprocessableContent)
            #expect(refused["error", "fields"] as? [String: String] == ["value": "must be between 40 and 250"])
            let unknown = try await client.send(
                .post,
                "/user/measurements",
                ["measure": "waist", "value": 80, "unit": "in"],
                token: token
            )
            #expect(unknown.errorCode == "unknown_field")

            let clientID = UUID().uuidString
            let body: [String: Any] = [
                "measure": "waist", "value": 84.5, "recorded_at": "2024-05-01T06:00:00Z", "client_id": clientID,
            ]
            let waist = try await client.send(.post, "/user/measurements", body, token: token)
            #expect(waist.status == .created, "\(waist.text)")
            let replay = try await client.send(.post, "/user/measurements", body, token: token)
            #expect(replay.status == .ok)
            #expect(replay["id"] as? Int == waist["id"] as? Int)

            let grip = try await client.send(
                .post,
                "/user/measurement-types",
                ["name": "Grip", "unit": "kg", "min_value": 0, "max_value": 150],
                token: token
            )
            #expect(grip.status == .created, "\(grip.text)")
            let typeID = try #require(grip["id"] as? String)
            let gripEntry = try await client.send(
                .post,
                "/user/measurements",
                ["type_id": typeID, "value": 52, "source": "apple_health"],
                token: token
            )
            #expect(gripEntry.status == .created, "\(gripEntry.text)")
            #expect(try await client.send(.get, "/user/measures", token: token)["types"] as? [Any] != nil)

            let waistID = try #require(waist["id"] as? Int)
            let stale = try await client.send(
                .patch,
                "/user/measurements/\(waistID)",
                ["value": 84],
                token: token,
                headers: [.ifMatch: "\"1\""]
            )
            #expect(stale.status == .preconditionFailed)
            let fixed = try await client.send(.patch, "/user/measurements/\(waistID)", ["value": 84], token: token)
            #expect(fixed["value"] as? Int == 84)

            let series = try await client.send(
                .get,
                "/user/measurement-series?measure=waist&from=2024-04-01&to=2024-05-31",
                token: token
            )
            #expect(series.status == .ok, "\(series.text)")
            #expect((series["points"] as? [[String: Any]])?.map { $0["value"] as? Int } == [84])
            let weight = try await client.send(.get, "/user/measurement-series?measure=weight", token: token)
            #expect((weight["points"] as? [[String: Any]])?.count == 1)
            let both = try await client.send(
                .get,
                "/user/measurement-series?measure=waist&type_id=\(typeID)",
                token: token
            )
            #expect(both.status == .badRequest)

            let list = try await client.send(.get, "/user/measurements?type_id=\(typeID)", token: token)
            #expect((list["items"] as? [[String: Any]])?.map { $0["source"] as? String } == ["apple_health"])

            #expect(
                try await client.send(.delete, "/user/measurement-types/\(typeID)", token: token).status == .noContent
            )
            #expect(((try await client.send(.get, "/user/measurements", token: token))["items"] as? [Any])?.count == 1)
            #expect(try await client.send(.delete, "/user/measurements/\(waistID)", token: token).status == .noContent)
            #expect(try await client.send(.delete, "/user/measurements/\(waistID)", token: token).status == .notFound)
        }
    }

    @Test("water: the target from the weight, a drink on its local day, the day in /nutrition/daily, correction")
    func water() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "water")
            var body = OnboardingHTTPTests.validBody
            body["timezone"] = "Europe/Berlin"
            _ = try await client.send(.post, "/onboarding/complete", body, token: token)
            #expect(try await client.send(.get, "/user/targets", token: token)["water_ml"] as? Int == 2800)

            let drink = try await client.send(
                .post,
                "/nutrition/water",
                ["amount_ml": 500, "recorded_at": "2024-03-10T23:30:00Z"],
                token: token
            )
            #expect(drink.status == .created, "\(drink.text)")
            #expect(drink["entry_date"] as? String == "2024-03-11")
            let day = try await client.send(.get, "/nutrition/daily?date=2024-03-11", token: token)
            #expect(day["water", "total_ml"] as? Int == 500)
            #expect(day["water", "remaining_ml"] as? Int == 2300)

            let id = try #require(drink["id"] as? Int)
            let fixed = try await client.send(.patch, "/nutrition/water/\(id)", ["amount_ml": 330], token: token)
            #expect(fixed["amount_ml"] as? Int == 330)
            let water = try await client.send(.get, "/nutrition/water?date=2024-03-11", token: token)
            #expect(water["total_ml"] as? Int == 330)
            #expect((water["items"] as? [Any])?.count == 1)
            #expect(try await client.send(.delete, "/nutrition/water/\(id)", token: token).status == .noContent)
            #expect(
                try await client.send(.get, "/nutrition/water?date=2024-03-11", token: token)["total_ml"] as? Int == 0
            )
        }
    }
}
