import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import Testing

/// POST /import/{strong|hevy|fitnotes|cronometer|liftbase} over HTTP with the fixtures in Tests/Fixtures/imports,
/// one per layout the exporting apps have used.
@Suite("imports over HTTP")
struct ImportHTTPTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/imports")

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    @Test(
        "each format and layout imports every row; the same file again adds nothing",
        arguments: [
            ("strong", "strong-2025.csv", 8), ("strong", "strong-2019-pounds.csv", 3),
            ("strong", "strong-2019-kg.csv", 2),
            ("hevy", "hevy-2026.csv", 5), ("hevy", "hevy-pounds.csv", 2), ("cronometer", "cronometer-servings.csv", 5),
            ("fitnotes", "fitnotes-2025.csv", 6), ("fitnotes", "fitnotes-2025-units.csv", 5),
        ]
    )
    func importsEachLayout(format: String, file: String, rows: Int) async throws {
        let csv = try Self.fixture(file)
        try await withTestClient { client in
            let token = try await registerUser(client, "import-\(format)")
            let first = try await client.importCSV(format, csv, token: token)
            #expect(first.status == .ok)
            #expect(first["imported"] as? Int == rows)
            #expect(first["skipped_duplicates"] as? Int == 0)
            #expect((first["errors"] as? [Any])?.isEmpty == true)
            let again = try await client.importCSV(format, csv, token: token)
            #expect(again["imported"] as? Int == 0)
            #expect(again["skipped_duplicates"] as? Int == rows)
        }
    }

    @Test("Strong: set types, notes spanning lines, durations, catalog matching")
    func strongDetails() async throws {
        let csv = try Self.fixture("strong-2025.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-strong")
            _ = try await client.importCSV("strong", csv, token: token)
            let list = try await client.send(.get, "/training/sessions", token: token)
            let items = try #require(list["items"] as? [[String: Any]])
            // Required, not expected: the lines below index into these lists.
            try #require(items.compactMap { $0["name"] as? String } == ["Evening Legs", "Morning Push"])
            let pushID = try #require(items[1]["id"] as? String)
            let push = try await client.send(.get, "/training/sessions/\(pushID)", token: token)
            // A new account's time zone is UTC: the file's 07:15 for 1h 5m is 07:15–08:20 UTC.
            #expect((push["started_at"] as? String)?.hasPrefix("2025-03-03T07:15:00") == true)
            #expect((push["finished_at"] as? String)?.hasPrefix("2025-03-03T08:20:00") == true)
            let exercises = try #require(push["exercises"] as? [[String: Any]])
            try #require(
                exercises.compactMap { $0["exercise_name"] as? String } == ["Barbell Bench Press", "Overhead Press"]
            )
            #expect(exercises[0]["notes"] as? String == "Pause on chest,\none second")
            // Both are the catalog's: "Overhead Press" by its name, Strong's "Bench Press (Barbell)"
            // by its words (docs/imports.md, "How names resolve").
            let catalog = try await client.send(.get, "/exercises?q=Press", token: token)
            let found = try #require(catalog["items"] as? [[String: Any]])
            for (index, name) in ["Barbell Bench Press", "Overhead Press"].enumerated() {
                let entry = found.first { $0["name"] as? String == name }
                #expect(entry?["is_user_created"] as? Bool == false)
                #expect(exercises[index]["exercise_id"] as? String == entry?["id"] as? String)
            }
            let bench = try #require(exercises[0]["sets"] as? [[String: Any]])
            #expect(bench.compactMap { $0["set_type"] as? String } == ["warmup", "working", "working"])
            #expect(bench.compactMap { ($0["rpe"] as? NSNumber)?.doubleValue } == [8, 8.5])
            let press = try #require(exercises[1]["sets"] as? [[String: Any]])
            #expect(press.compactMap { $0["set_type"] as? String } == ["working", "dropset", "failure"])
        }
    }

    @Test("a name that became an own exercise merges into the catalog's, and the next import of it lands there")
    func mergeAnImportedName() async throws {
        let csv = """
            Date,Workout Name,Exercise Name,Set Order,Weight,Reps
            2025-05-05 07:00:00,Push,Flat Bench (Comp),1,100,5
            2025-05-05 07:00:00,Push,Bench Press (Barbell),1,80,8

            """
        try await withTestClient { client in
            let token = try await registerUser(client, "import-merge")
            let first = try await client.importCSV("strong", csv, token: token)
            let names = try #require(first["exercises"] as? [[String: Any]])
            let own = try #require(names.first { $0["name"] as? String == "Flat Bench (Comp)" })
            #expect(own["how"] as? String == "new")
            let ownID = try #require(own["user_exercise_id"] as? String)
            let bench = try #require(names.first { $0["name"] as? String == "Bench Press (Barbell)" })
            #expect(bench["exercise_name"] as? String == "Barbell Bench Press")
            let benchID = try #require(bench["exercise_id"] as? String)

            let merged = try await client.send(
                .post,
                "/exercises/\(ownID)/merge",
                ["into_id": benchID],
                token: token
            )
            #expect(merged.status == .ok)
            #expect((merged["moved"] as? [String: Any])?["sessions"] as? Int == 1)
            #expect(merged["alias"] as? String == "flat bench (comp)")
            #expect(merged["deleted"] as? Bool == true)
            let again = try await client.send(.post, "/exercises/\(ownID)/merge", ["into_id": benchID], token: token)
            #expect(again.status == .notFound)

            let later = try await client.importCSV(
                "strong",
                "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n2025-05-12 07:00:00,Push,Flat Bench (Comp),1,102.5,5\n",
                token: token
            )
            let resolved = try #require((later["exercises"] as? [[String: Any]])?.first)
            #expect(resolved["how"] as? String == "alias")
            #expect(resolved["exercise_id"] as? String == benchID)
        }
    }

    @Test("pounds become kilograms (to 10 g), in Strong's lb column and Hevy's weight_lbs")
    func poundsToKilograms() async throws {
        let strong = try Self.fixture("strong-2019-pounds.csv")
        let hevy = try Self.fixture("hevy-pounds.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-pounds")
            _ = try await client.importCSV("strong", strong, token: token)
            _ = try await client.importCSV("hevy", hevy, token: token)
            let list = try await client.send(.get, "/training/sessions", token: token)
            let items = try #require(list["items"] as? [[String: Any]])
            var weights: [String: [Double]] = [:]
            for item in items {
                let session = try await client.send(
                    .get,
                    "/training/sessions/\(try #require(item["id"] as? String))",
                    token: token
                )
                let exercises = try #require(session["exercises"] as? [[String: Any]])
                let sets = try #require(exercises.first?["sets"] as? [[String: Any]])
                weights[try #require(session["name"] as? String)] = sets.compactMap {
                    ($0["weight_kg"] as? NSNumber)?.doubleValue
                }
            }
            // 135 lb × 0.45359237 = 61.2350 kg (61.23497),  225 lb = 102.0583 kg, 315 lb = 142.8816 kg; 35 lb = 15.8757 kg.
            #expect(weights["Garage"] == [61.23, 102.06, 142.88])
            #expect(weights["Arms"] == [15.88, 15.88])
        }
    }

    @Test("one bad row: named by its line (counted across a note that spans lines), and the other rows imported")
    func oneBadRow() async throws {
        let csv = try Self.fixture("strong-bad-row.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-bad")
            let answer = try await client.importCSV("strong", csv, token: token)
            #expect(answer.status == .ok)
            #expect(answer["imported"] as? Int == 2)
            let errors = try #require(answer["errors"] as? [[String: Any]])
            #expect(errors.count == 1)
            #expect(errors.first?["line"] as? Int == 4)
            #expect(errors.first?["message"] as? String == "Reps must be a whole number")
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect((list["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Test Day"])
        }
    }

    @Test("strict=true: one bad row is 422 naming its line, and nothing is imported")
    func strictFailure() async throws {
        let csv = try Self.fixture("strong-bad-row.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-strict")
            let answer = try await client.importCSV("strong", csv, token: token, query: "?strict=true")
            #expect(answer.status == .unprocessableContent)
            #expect(answer.errorCode == "import_invalid")
            #expect(answer["imported"] as? Int == 0)
            let errors = try #require(answer["errors"] as? [[String: Any]])
            #expect(errors.compactMap { $0["line"] as? Int } == [4])
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect((list["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("fields separated by semicolons and a decimal comma (Strong in some locales)")
    func semicolonsAndDecimalCommas() async throws {
        let csv = try Self.fixture("strong-semicolons.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-semicolons")
            let answer = try await client.importCSV("strong", csv, token: token)
            #expect(answer.status == .ok)
            #expect(answer["imported"] as? Int == 2)
            #expect((answer["skipped"] as? [[String: Any]])?.compactMap { $0["line"] as? Int } == [3])
            let list = try await client.send(.get, "/training/sessions", token: token)
            let id = try #require((list["items"] as? [[String: Any]])?.first?["id"] as? String)
            let session = try await client.send(.get, "/training/sessions/\(id)", token: token)
            let exercises = try #require(session["exercises"] as? [[String: Any]])
            #expect(exercises.first?["notes"] as? String == "slow, controlled")
            let sets = try #require(exercises.first?["sets"] as? [[String: Any]])
            #expect(sets.compactMap { ($0["weight_kg"] as? NSNumber)?.doubleValue } == [62.5, 65])
            #expect(sets.compactMap { ($0["rpe"] as? NSNumber)?.doubleValue } == [8.5])
        }
    }

    @Test("FitNotes 2025 with Weight Unit and no Comment: a comma in one name leaves every other line as it is")
    func fitNotesCommaOnOneLine() async throws {
        let csv = try Self.fixture("fitnotes-2025-units.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-fitnotes-units")
            let answer = try await client.importCSV("fitnotes", csv, token: token)
            #expect(answer.status == .ok)
            #expect(answer["imported"] as? Int == 5)
            #expect((answer["errors"] as? [Any])?.isEmpty == true)
            let warnings = try #require(answer["warnings"] as? [[String: Any]])
            #expect(warnings.compactMap { $0["line"] as? Int } == [4])
            #expect(
                warnings.first?["message"] as? String
                    == "Exercise held an unquoted comma: read as \"Overhead Press (Each Side, Dumbbells)\""
            )
        }
    }

    @Test("a byte-order mark before the header (as spreadsheet apps write) is not part of its first cell")
    func byteOrderMark() async throws {
        // Read as bytes: the mark must reach the server as the file has it.
        let bytes = try Data(contentsOf: Self.fixtures.appendingPathComponent("strong-bom.csv"))
        #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        try await withTestClient { client in
            let token = try await registerUser(client, "import-bom")
            let answer = try await client.importBody("strong", ByteBuffer(bytes: bytes), token: token)
            #expect(answer.status == .ok)
            #expect(answer["imported"] as? Int == 2)
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect(
                (list["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Saved by a spreadsheet"]
            )
        }
    }

    @Test("dry_run reports the counts and writes nothing")
    func dryRun() async throws {
        let csv = try Self.fixture("hevy-2026.csv")
        try await withTestClient { client in
            let token = try await registerUser(client, "import-dry")
            let dry = try await client.importCSV("hevy", csv, token: token, query: "?dry_run=true")
            #expect(dry.status == .ok)
            #expect(dry["imported"] as? Int == 5)
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect((list["items"] as? [Any])?.isEmpty == true)
            let real = try await client.importCSV("hevy", csv, token: token)
            #expect(real["imported"] as? Int == 5, "a dry run marks nothing as imported")
        }
    }

    @Test("malformed CSV (a stray or unclosed quote) is 400; no token is 401")
    func malformedCSV() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "import-malformed")
            let broken = "Date,Workout Name\n2025-01-01 10:00:00,Bad \"quote\" here\n"
            let answer = try await client.importCSV("strong", broken, token: token)
            #expect(answer.status == .badRequest)
            #expect(answer.errorCode == "malformed_csv")
            let unclosed = try await client.importCSV(
                "strong",
                "Date,Workout Name\n2025-01-01 10:00:00,\"Open\n",
                token: token
            )
            #expect(unclosed.status == .badRequest)
            #expect(unclosed.errorCode == "malformed_csv")
            #expect(try await client.importCSV("strong", "Date\n", token: nil).status == .unauthorized)
        }
    }

    @Test("CSV imports take bodies up to 20 MiB: above is 413, while other routes stop at 1 MiB")
    func bodyLimit() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "import-large")
            let header = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps,Notes\n"
            let overLimit = header + String(repeating: "x", count: importMaximumBodySize + 1 - header.utf8.count)
            let tooLarge = try await client.importCSV("strong", overLimit, token: token)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.errorCode == "body_too_large")
            // 2 MiB is over the generic limit but fine for an import: it reaches SQL (and its
            // one malformed row is named).
            let underLimit =
                header + "2025-01-01 10:00:00,Big,Squat,1,100,5," + String(repeating: "n", count: 2 << 20) + "\n"
            let accepted = try await client.importCSV("strong", underLimit, token: token, query: "?strict=true")
            #expect(accepted.status == .unprocessableContent)
            #expect((accepted["errors"] as? [[String: Any]])?.first?["line"] as? Int == 2)
        }
    }

    @Test("a Liftbase document may be up to 64 MiB: more than a CSV import takes, and above it is 413")
    func liftbaseBodyLimit() async throws {
        // A document of no rows, padded by a member a version-1 reader ignores.
        func document(bytes: Int) -> String {
            let start = #"{"format":"liftbase-export","version":1,"padding":""#
            let end = #""}"#
            return start + String(repeating: "x", count: bytes - start.utf8.count - end.utf8.count) + end
        }
        #expect(liftbaseImportMaximumBodySize == 64 << 20)
        let overCSVLimitDocument = document(bytes: importMaximumBodySize + (1 << 20))
        let overLimitDocument = document(bytes: liftbaseImportMaximumBodySize + 1)
        try await withTestClient { client in
            let token = try await registerUser(client, "import-large-liftbase")
            let overCSVLimit = try await client.importCSV("liftbase", overCSVLimitDocument, token: token)
            #expect(overCSVLimit.status == .ok)
            #expect(overCSVLimit["imported"] as? Int == 0)
            let tooLarge = try await client.importCSV("liftbase", overLimitDocument, token: token)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.errorCode == "body_too_large")
        }
    }

    @Test("a Liftbase document referring to an own exercise nobody holds: 422 in words, no database text")
    func liftbaseErrorInWords() async throws {
        let session: [String: Any] = [
            "id": UUID().uuidString.lowercased(), "session_date": "2025-06-01", "name": "Dangling",
            "status": "completed",
            "exercises": [
                [
                    "position": 1, "user_exercise_id": UUID().uuidString.lowercased(), "exercise_name": "Sled Drag",
                    "sets": [["position": 1, "reps": 5, "weight_kg": 100, "set_type": "working"]],
                ]
            ],
        ]
        let document = String(
            decoding: try JSONSerialization.data(
                withJSONObject: [
                    "format": "liftbase-export", "version": 1, "training_sessions": [session],
                ] as [String: Any]
            ),
            as: UTF8.self
        )
        try await withTestClient { client in
            let token = try await registerUser(client, "import-liftbase-words")
            let answer = try await client.importCSV("liftbase", document, token: token)
            #expect(answer.status == .unprocessableContent)
            #expect(answer.errorCode == "import_invalid")
            let errors = try #require(answer["errors"] as? [[String: Any]])
            #expect(
                errors.first?["message"] as? String
                    == "training_sessions: user_exercise_id names a row that is neither in the document nor in this account"
            )
        }
    }

    @Test("a Liftbase export document imports over HTTP, once")
    func liftbaseDocument() async throws {
        let session: [String: Any] = [
            "id": UUID().uuidString.lowercased(), "client_id": NSNull(), "session_date": "2025-06-01",
            "name": "From backup",
            "notes": NSNull(), "status": "completed", "started_at": NSNull(), "finished_at": NSNull(),
            "created_at": "2025-06-01T10:00:00+00:00",
            "exercises": [
                [
                    "position": 1, "exercise_id": NSNull(), "user_exercise_id": NSNull(),
                    "exercise_name": "Barbell Squat",
                    "notes": NSNull(),
                    "sets": [
                        [
                            "position": 1, "reps": 5, "weight_kg": 100, "rpe": NSNull(), "rir": NSNull(),
                            "set_type": "working", "tempo": NSNull(), "rest_seconds": NSNull(),
                        ]
                    ],
                ]
            ],
        ]
        let document = String(
            decoding: try JSONSerialization.data(
                withJSONObject: [
                    "format": "liftbase-export", "version": 1, "training_sessions": [session],
                ] as [String: Any]
            ),
            as: UTF8.self
        )
        try await withTestClient { client in
            let token = try await registerUser(client, "import-liftbase")
            let first = try await client.importCSV("liftbase", document, token: token)
            #expect(first.status == .ok)
            #expect(first["imported"] as? Int == 1)
            let again = try await client.importCSV("liftbase", document, token: token)
            #expect(again["skipped_duplicates"] as? Int == 1)
            let list = try await client.send(.get, "/training/sessions", token: token)
            #expect((list["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["From backup"])
        }
    }

    @Test("a generated Strong file of 20,000 sets imports whole (the time is printed, not asserted)")
    func twentyThousandSets() async throws {
        var generated =
            "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n"
        let exercises = ["Barbell Squat", "Barbell Bench Press", "Barbell Row", "Generated Cable Move"]
        // 1,000 workouts, one a day, of 4 exercises × 5 sets (a warm-up and 4 working sets).
        let start = Date(timeIntervalSince1970: 1_577_862_000)  // 2020-01-01 07:00 UTC
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatter.timeZone = TimeZone(identifier: "UTC")
        for workout in 0..<1000 {
            let date = formatter.string(from: start.addingTimeInterval(Double(workout) * 86_400))
            for (index, exercise) in exercises.enumerated() {
                for set in 0..<5 {
                    generated +=
                        "\(date),Workout \(workout % 7),1h 5m,\(exercise),\(set == 0 ? "W" : String(set)),\(40 + index * 10 + set),5,0,0,,,8\n"
                }
            }
        }
        let csv = generated
        try await withTestClient { client in
            let token = try await registerUser(client, "import-20k")
            let clock = ContinuousClock()
            let began = clock.now
            let answer = try await client.importCSV("strong", csv, token: token)
            print("import of 20,000 Strong sets (\(csv.utf8.count) bytes) over HTTP: \(clock.now - began)")
            #expect(answer["imported"] as? Int == 20_000)
            let again = try await client.importCSV("strong", csv, token: token)
            #expect(again["skipped_duplicates"] as? Int == 20_000)
        }
    }
}

extension TestClientProtocol {
    /// Posts a body as it is (a CSV export, or a Liftbase document) to an import route.
    func importCSV(
        _ format: String,
        _ csv: String,
        token: String?,
        query: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> APIAnswer {
        try await importBody(
            format,
            ByteBuffer(string: csv),
            token: token,
            query: query,
            sourceLocation: sourceLocation
        )
    }

    /// Posts bytes as they are to an import route.
    func importBody(
        _ format: String,
        _ body: ByteBuffer,
        token: String?,
        query: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> APIAnswer {
        var headers: HTTPFields = [.contentType: format == "liftbase" ? "application/json" : "text/csv"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let uri = apiBasePath + "/import/" + format + query
        return APIAnswer(
            try await execute(uri: uri, method: .post, headers: headers, body: body),
            method: .post,
            uri: uri,
            sourceLocation: sourceLocation
        )
    }
}
