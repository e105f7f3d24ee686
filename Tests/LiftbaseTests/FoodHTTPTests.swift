import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("food over HTTP")
struct FoodHTTPTests {
    @Test("own food → search → barcode → log with servings → daily totals; short queries are 422")
    func diaryFlow() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "food")
            let barcode = String(UInt64.random(in: 10_000_000_000...99_999_999_999))
            let food = try await client.send(
                .post,
                "/food/items",
                [
                    "name": "Test kitchen lentil stew \(barcode)", "barcode": barcode, "calories": 120, "protein_g": 8,
                    "carbs_g": 15, "fat_g": 3, "serving_g": 250, "serving_label": "1 bowl",
                ],
                token: token
            )
            #expect(food.status == .created)
            #expect(food["per_serving", "calories"] as? Double == 300)
            let id = try #require(food["id"] as? String)

            let found = try await client.send(.get, "/food/search?q=lentil%20stew%20\(barcode)", token: token)
            #expect((found["items"] as? [[String: Any]])?.first?["id"] as? String == id)
            #expect(try await client.send(.get, "/food/barcode/\(barcode)", token: token)["id"] as? String == id)
            #expect(try await client.send(.get, "/food/barcode/000000", token: token).errorCode == "food_not_found")
            let short = try await client.send(.get, "/food/search?q=l", token: token)
            #expect(short.status == .unprocessableContent)
            #expect(short.errorCode == "query_too_short")

            let entry = try await client.send(
                .post,
                "/nutrition/entries",
                [
                    "food_item_id": id, "servings": 2, "meal_type": "dinner", "source": "barcode",
                    "entry_date": "2026-03-03",
                ],
                token: token
            )
            #expect(entry.status == .created)
            #expect(entry["calories"] as? Double == 600)
            let daily = try await client.send(.get, "/nutrition/daily?date=2026-03-03", token: token)
            #expect(daily["totals", "calories"] as? Double == 600)
            #expect(daily["meals", "dinner", "entries"] as? Int == 1)
            _ = try await client.send(
                .post,
                "/meals/favorites",
                ["entry_id": try #require(entry["id"] as? String)],
                token: token
            )
            let favorites = try await client.send(.get, "/meals/favorites", token: token)
            #expect((favorites["items"] as? [[String: Any]])?.first?["calories"] as? Double == 600)
            _ = try await client.send(
                .post,
                "/meals/custom",
                ["name": "Stew night", "items": [["food_item_id": id, "servings": 1]]],
                token: token
            )
            let meals = try await client.send(.get, "/meals/custom", token: token)
            #expect((meals["items"] as? [[String: Any]])?.first?["name"] as? String == "Stew night")
            #expect(try await client.send(.get, "/meals/custom", token: "not-a-token").status == .unauthorized)
            #expect(
                try await client.send(
                    .delete,
                    "/nutrition/entries/\(try #require(entry["id"] as? String))",
                    token: token
                ).status == .noContent
            )
        }
    }
}

@Suite("client_id retries over HTTP")
struct ClientIDRaceTests {
    @Test("concurrent retries of one upload: one 201, the rest 200 with the same entry")
    func concurrentRetries() async throws {
        try await withTestClient(poolSize: 6) { client in
            let token = try await registerUser(client, "retry")
            let clientID = UUID().uuidString.lowercased()
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let answer = try await client.send(
                            .post,
                            "/nutrition/entries",
                            [
                                "client_id": clientID, "name": "Shake", "calories": 250, "source": "manual",
                            ],
                            token: token
                        )
                        return (answer.status.code, answer["id"] as? String)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(answers.map(\.0).sorted() == [200, 200, 200, 200, 200, 201])
            #expect(Set(answers.compactMap(\.1)).count == 1)
        }
    }
}
