import Foundation
import HTTPTypes
import HummingbirdTesting
import PQ
import Testing

@testable import LiftbaseHTTP

/// The export as the SQL functions produce it, read by an administrative connection: what
/// the HTTP answer and the CLI output must equal.
enum ExportFixture {
    /// The account's id, after giving it a history long enough to span many streamed
    /// chunks (120 sessions of 12 sets, 400 diary entries) plus a few rows made over HTTP.
    static func fillHistory(email: String) throws -> String {
        let admin = try TestDatabase.admin()
        defer { admin.close() }
        let id = try #require(try admin.query("select id::text from auth.users where email = $1", [email]).scalar)
        try admin.query(
            """
            with sessions as (
              insert into app.training_sessions (user_id, session_date, name, notes, status, started_at, finished_at)
              select $1::uuid, date '2024-01-01' + n, 'Day ' || n || ', "bulk"', case when n % 7 = 0 then E'deload\\nweek' end,
                     'completed', timestamptz '2024-01-01 17:00+00' + make_interval(days => n),
                     timestamptz '2024-01-01 18:10+00' + make_interval(days => n)
                from generate_series(1, 120) as n
              returning user_id, id),
            exercises as (
              insert into app.session_exercises (user_id, session_id, position, exercise_name)
              select s.user_id, s.id, p, 'Exercise ' || p from sessions as s, generate_series(1, 3) as p
              returning user_id, session_id, position)
            insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, set_type)
            select e.user_id, e.session_id, e.position, p, 5, 60 + p * 2.5, case when p > 1 then 7 + p * 0.5 end,
                   case when p = 1 then 'warmup' else 'working' end
              from exercises as e, generate_series(1, 4) as p
            """,
            [id]
        )
        try admin.query(
            """
            insert into app.food_entries (user_id, entry_date, meal_type, name, calories, protein_g, carbs_g, fat_g, source)
            select $1::uuid, date '2024-01-01' + n / 4, (array['breakfast', 'lunch', 'dinner', 'snack'])[n % 4 + 1],
                   'Food ' || n || ', with "quotes"', 100 + n, 10, 12.5, 3, 'manual'
              from generate_series(1, 400) as n
            """,
            [id]
        )
        return id
    }

    /// The document straight from SQL, as one string.
    static func sqlDocument(userID: String) throws -> String {
        let admin = try TestDatabase.admin()
        defer { admin.close() }
        try admin.query(
            "select set_config('liftbase.user_id', $1, false), set_config('TimeZone', 'UTC', false)",
            [userID]
        )
        return try #require(
            try admin.query(
                "select string_agg(chunk, '' order by n) from app.export_document($1::uuid) with ordinality as c (chunk, n)",
                [userID]
            ).scalar
        )
    }

    static func withoutExportedAt(_ document: String) -> String {
        document.replacingOccurrences(of: #""exported_at":"[^"]*""#, with: "", options: .regularExpression)
    }
}

@Suite("export over HTTP")
struct ExportHTTPTests {
    @Test("the streamed JSON export is valid JSON and equals the SQL document")
    func streamedJSON() async throws {
        try await withTestClient { client in
            let email = TestDatabase.uniqueEmail("export")
            let registered = try await client.send(
                .post,
                "/auth/register",
                ["email": email, "password": "a good password"]
            )
            let token = try #require(registered["token"] as? String)
            _ = try await client.send(
                .patch,
                "/settings",
                ["reminders": ["meals": ["enabled": true, "times": ["08:00"]]]],
                token: token
            )
            _ = try await client.send(
                .post,
                "/training/sessions",
                TrainingHTTPTests.session(date: "2026-05-01"),
                token: token
            )
            let userID = try ExportFixture.fillHistory(email: email)

            let answer = try await client.send(.get, "/export?format=json", token: token)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            // Several spool-file chunks: the answer was read back from the spool file and written
            // chunk by chunk, and arrives whole and in order.
            #expect(answer.text.utf8.count > 5 * APIResponder.streamChunkBytes)
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])
            #expect(parsed["format"] as? String == "liftbase-export")
            #expect((parsed["training_sessions"] as? [Any])?.count == 121)
            #expect((parsed["food_entries"] as? [Any])?.count == 400)
            #expect(
                ExportFixture.withoutExportedAt(answer.text)
                    == ExportFixture.withoutExportedAt(try ExportFixture.sqlDocument(userID: userID))
            )

            // The pool is free again: a normal request still answers.
            #expect(
                try await client.send(.get, "/settings", token: token)["reminders", "meals", "times"] as? [String] == [
                    "08:00"
                ]
            )
        }
    }

    @Test("errors come before the first byte: 401 without or with a bad token, 400 for another format")
    func errors() async throws {
        try await withTestClient { client in
            let missing = try await client.send(.get, "/export")
            #expect(missing.status == .unauthorized)
            let bad = try await client.send(.get, "/export", token: "not-a-token")
            #expect(bad.status == .unauthorized)
            #expect(bad.errorCode != nil)
            #expect(try await client.send(.get, "/export/workouts.csv", token: "not-a-token").status == .unauthorized)
            let token = try await registerUser(client, "export-errors")
            let xml = try await client.send(.get, "/export?format=xml", token: token)
            #expect(xml.status == .badRequest)
            #expect(xml.errorCode == "invalid_parameter")
            #expect(try await client.send(.get, "/export", token: token).status == .ok)
        }
    }

    @Test("CSV files: text/csv, exact headers, one row per set and per entry")
    func csv() async throws {
        try await withTestClient { client in
            let email = TestDatabase.uniqueEmail("export-csv")
            let registered = try await client.send(
                .post,
                "/auth/register",
                ["email": email, "password": "a good password"]
            )
            let token = try #require(registered["token"] as? String)
            _ = try ExportFixture.fillHistory(email: email)

            let workouts = try await client.send(.get, "/export/workouts.csv", token: token)
            #expect(workouts.status == .ok)
            #expect(workouts.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(workouts.headers[.contentDisposition] == "attachment; filename=\"workouts.csv\"")
            let lines = workouts.text.components(separatedBy: "\r\n")
            // 120 sessions × 3 exercises × 4 sets, the header, and the empty string after the last CRLF.
            // Required, not expected: the lines below index into them.
            try #require(lines.count == 1 + 1440 + 1)
            #expect(
                lines.first
                    == "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE,Assistance,Superset,Superset Rest Seconds"
            )
            // Day 1 starts 2024-01-02 17:00 UTC (the account keeps the default zone, UTC) and lasts 70 minutes.
            #expect(lines[1] == "2024-01-02 17:00:00,\"Day 1, \"\"bulk\"\"\",1h 10m,Exercise 1,W,62.5,5,0,0,,,,,,")
            #expect(lines[2] == "2024-01-02 17:00:00,\"Day 1, \"\"bulk\"\"\",1h 10m,Exercise 1,1,65.0,5,0,0,,,8.0,,,")

            let nutrition = try await client.send(.get, "/export/nutrition.csv", token: token)
            #expect(
                nutrition.text.hasPrefix("Date,Meal,Name,Calories,Protein (g),Carbs (g),Fat (g),Servings,Source\r\n")
            )
            #expect(nutrition.text.components(separatedBy: "\r\n").count == 1 + 400 + 1)
            let metrics = try await client.send(.get, "/export/body_metrics.csv", token: token)
            #expect(metrics.text == "Date,Time,Weight (kg),Body Fat (%),Height (cm)\r\n")
        }
    }
}

@Suite("export CLI")
struct ExportCLITests {
    @Test("json to stdout equals the SQL document; csv writes three files; usage and unknown users")
    func export() throws {
        let email = TestDatabase.uniqueEmail("export-cli")
        let url = try TestDatabase.url()
        #expect(
            try runCLI(["user", "create", email, "--password", "export password", "--database-url", url]).status == 0
        )
        let userID = try ExportFixture.fillHistory(email: email)

        let json = try runCLI(["export", "--user", email, "--database-url", url])
        #expect(json.status == 0)
        #expect(
            ExportFixture.withoutExportedAt(json.stdout)
                == ExportFixture.withoutExportedAt(try ExportFixture.sqlDocument(userID: userID))
        )
        #expect(
            (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["version"] as? Int == 2
        )

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liftbase-export-\(TestDatabase.uniqueSuffix())"
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = try runCLI([
            "export", "--user", email, "--format", "csv", "--output", folder.path, "--database-url", url,
        ])
        #expect(csv.status == 0)
        let workouts = try String(contentsOf: folder.appendingPathComponent("workouts.csv"), encoding: .utf8)
        #expect(
            workouts.hasPrefix(
                "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE,Assistance,Superset,Superset Rest Seconds\r\n"
            )
        )
        #expect(workouts.components(separatedBy: "\r\n").count == 1 + 1440 + 1)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("nutrition.csv").path))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("body_metrics.csv").path))

        let one = try runCLI([
            "export", "--user", email, "--format", "csv", "--type", "body_metrics", "--database-url", url,
        ])
        #expect(one.stdout == "Date,Time,Weight (kg),Body Fat (%),Height (cm)\r\n")

        #expect(try runCLI(["export", "--user", email, "--format", "csv", "--database-url", url]).status == 2)
        #expect(try runCLI(["export", "--user", email, "--type", "workouts", "--database-url", url]).status == 2)
        let unknown = try runCLI([
            "export", "--user", "nobody-\(TestDatabase.uniqueSuffix())@example.com", "--database-url", url,
        ])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.split(separator: "\n").count == 1)
    }
}
