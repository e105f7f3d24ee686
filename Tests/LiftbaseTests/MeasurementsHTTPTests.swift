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

    @Test("health samples: a batch by sample id, an odd sample named and left out, the day's steps from one source")
    func healthSamples() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "health")
            func sample(_ id: String, _ device: String, _ steps: Int, unit: String = "count") -> [String: Any] {
                [
                    "sample_id": id, "type": "steps", "value": steps, "unit": unit, "start": "2024-05-01T06:00:00Z",
                    "end": "2024-05-01T07:00:00Z", "source_app": "Health", "device": device,
                ]
            }
            let batch: [String: Any] = [
                "platform": "apple_health",
                "samples": [
                    sample("a", "iPhone", 4000), sample("b", "Apple Watch", 3800), sample("c", "iPhone", 5, unit: "kg"),
                ],
            ]
            let first = try await client.send(.post, "/health/samples", batch, token: token)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first["new"] as? Int == 2)
            let rejected = try #require(first["rejected"] as? [[String: Any]])
            #expect(rejected.first?["index"] as? Int == 2)
            #expect(rejected.first?["sample_id"] as? String == "c")
            let again = try await client.send(.post, "/health/samples", batch, token: token)
            #expect(again["unchanged"] as? Int == 2)

            let days = try await client.send(
                .get,
                "/health/daily?type=steps&from=2024-05-01&to=2024-05-01",
                token: token
            )
            #expect(days.status == .ok, "\(days.text)")
            let day = try #require((days["items"] as? [[String: Any]])?.first)
            #expect(day["value"] as? Int == 4000)
            #expect(day["source"] as? String == "Health / iPhone")

            let deleted = try await client.send(
                .post,
                "/health/samples",
                ["platform": "apple_health", "deleted": ["a"]],
                token: token
            )
            #expect(deleted["deleted"] as? Int == 1)
            let after = try await client.send(
                .get,
                "/health/daily?type=steps&from=2024-05-01&to=2024-05-01",
                token: token
            )
            #expect((after["items"] as? [[String: Any]])?.first?["value"] as? Int == 3800)
            #expect(try await client.send(.get, "/health/daily?type=blood_glucose", token: token).status == .badRequest)
            let unknown = try await client.send(.post, "/health/samples", ["platform": "fitbit"], token: token)
            #expect(unknown.status == .unprocessableContent)
        }
    }

    @Test("a scale's weight sample is a weigh-in; the body and health data move to another account by export")
    func weightSampleAndExport() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "health-move")
            _ = try await client.send(.post, "/onboarding/complete", OnboardingHTTPTests.validBody, token: token)
            let weighIn: [String: Any] = [
                "platform": "health_connect",
                "samples": [
                    [
                        "sample_id": "scale-1", "type": "weight", "value": 90, "unit": "kg",
                        "start": "2026-11-01T07:00:00Z", "end": "2099-01-01T07:00:00Z",
                    ],
                    [
                        "sample_id": "steps-1", "type": "steps", "value": 8000, "start": "2024-05-01T06:00:00Z",
                        "end": "2024-05-01T07:00:00Z", "unit": "count",
                    ],
                ],
            ]
            let refused = try await client.send(.post, "/health/samples", weighIn, token: token)
            #expect((refused["rejected"] as? [[String: Any]])?.first?["sample_id"] as? String == "scale-1")
            var fixed = weighIn
            fixed["samples"] = [
                [
                    "sample_id": "scale-1", "type": "weight", "value": 198.4, "unit": "lb",
                    "start": "2026-11-27T07:00:00Z", "end": "2026-11-27T07:00:00Z",
                ]
            ]
            _ = try await client.send(.post, "/health/samples", fixed, token: token)
            let metrics = try #require(
                try await client.send(.get, "/user/metrics", token: token)["items"] as? [[String: Any]]
            )
            #expect(
                metrics.contains {
                    $0["source"] as? String == "health_connect" && $0["weight_kg"] as? Double == 89.9927
                }
            )
            _ = try await client.send(.post, "/user/measurements", ["measure": "chest", "value": 101], token: token)
            let drink = try await client.send(.post, "/nutrition/water", ["amount_ml": 330], token: token)
            let drinkDay = try #require(drink["entry_date"] as? String)

            let document = try await client.send(.get, "/export?format=json", token: token)
            #expect(document["version"] as? Int == 2)
            let other = try await registerUser(client, "health-moved")
            let imported = try await client.importCSV("liftbase", document.text, token: other)
            #expect(imported.status == .ok, "\(imported.text)")
            #expect((imported["errors"] as? [Any])?.isEmpty == true)
            // 06:00 UTC on 1 May is the evening before in the first account's zone (UTC−11).
            let steps = "/health/daily?type=steps&from=2024-04-30&to=2024-04-30"
            let days = try await client.send(.get, steps, token: other)
            #expect((days["items"] as? [[String: Any]])?.first?["value"] as? Int == 8000, "\(days.text)")
            #expect(((try await client.send(.get, "/user/measurements", token: other))["items"] as? [Any])?.count == 1)
            // The same document again adds nothing (counted by what is there: on Citus an
            // import's answer may count rows it tried, docs/scaling.md).
            let again = try await client.importCSV("liftbase", document.text, token: other)
            #expect(again.status == .ok)
            #expect(((try await client.send(.get, "/user/measurements", token: other))["items"] as? [Any])?.count == 1)
            #expect(
                try await client.send(.get, "/nutrition/water?date=\(drinkDay)", token: other)["entries"] as? Int == 1
            )
            #expect(
                (try await client.send(.get, steps, token: other)["items"] as? [[String: Any]])?.first?["samples"]
                    as? Int == 1
            )
        }
    }
}
