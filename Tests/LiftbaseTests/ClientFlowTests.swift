import Foundation
import HummingbirdTesting
import LiftbaseClient
import OpenAPIRuntime
import Testing

/// The generated client (LiftbaseClient) against a live server on the test database: one
/// real flow through the typed operations, so a contract the client cannot use fails here.
@Suite("generated client")
struct ClientFlowTests {
    @Test("register → onboard → own food → food search → diary entry → log a session → weekly volume → export")
    func flow() async throws {
        try await withTestClient(mode: .live) { testClient in
            let port = try #require(testClient.port, "the live test server has a port")
            let serverURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let email = TestDatabase.uniqueEmail("client")

            let anonymous = Client.liftbase(serverURL: serverURL)
            let registered = try await anonymous.authRegister(
                body: .json(.init(displayName: "Client", email: email, password: "client password"))
            ).created.body.json
            #expect(registered.user.email == email)

            let client = Client.liftbase(serverURL: serverURL, token: registered.token)
            let onboarded = try await client.onboardingComplete(
                body: .json(
                    .init(
                        activityLevel: .moderate,
                        ageYears: 34,
                        goalRatePerWeek: 0.25,
                        goalType: .bulking,
                        heightCm: 180,
                        sex: .male,
                        timezone: "Europe/Berlin",
                        weightKg: 80
                    )
                )
            ).created.body.json
            #expect(onboarded.goals.goalType == .bulking)
            #expect(onboarded.snapshot.calories > 0)

            let food = try await client.foodCreate(
                body: .json(
                    .init(
                        calories: 389,
                        carbsG: 66,
                        fatG: 7,
                        name: "Client test oats \(email)",
                        proteinG: 17,
                        servingG: 40,
                        servingLabel: "1 bowl"
                    )
                )
            ).created.body.json
            let found = try await client.foodSearch(query: .init(q: "client test oats")).ok.body.json
            let hit = try #require(found.items.first { $0.id == food.id }, "search finds the own food")
            #expect(hit.isUserFood)

            let entry = try await client.entryCreate(
                body: .json(.init(foodItemId: hit.id, mealType: .breakfast, servings: 2, source: .search))
            ).created.body.json
            #expect(entry.calories == 311.2)

            let started = Date(timeIntervalSinceNow: -3600)
            let session = try await client.sessionsCreate(
                body: .json(
                    .init(
                        exercises: [
                            .init(
                                exerciseName: "Barbell Bench Press",
                                sets: [.init(reps: 5, rpe: 8, weightKg: 100), .init(reps: 5, rpe: 8.5, weightKg: 100)]
                            ),
                            .init(exerciseName: "Pull Up", sets: [.init(reps: 8, setType: .working, weightKg: 0)]),
                        ],
                        finishedAt: Date(),
                        name: "Client push",
                        startedAt: started
                    )
                )
            ).created.body.json
            #expect(session.exercises.count == 2)
            #expect(session.status == .completed)
            #expect(abs((session.startedAt ?? .distantPast).timeIntervalSince(started)) < 0.001)

            let volume = try await client.analyticsVolume().ok.body.json
            let week = try #require(volume.weeks.last, "the week of the session")
            #expect(week.workingSets == 3)
            #expect(week.sets.additionalProperties["chest"] == 2)

            let document = try await client.exportJson().ok.body.json
            #expect(document.format.value as? String == "liftbase-export")
            #expect(document.trainingSessions?.count == 1)
            #expect(document.foodEntries?.count == 1)
        }
    }
}
