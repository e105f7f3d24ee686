import Foundation
import LiftbaseCore
import PQ
import Testing

/// `liftbase report`, run as the built executable. Each test writes its import runs on a
/// random day of the last century, so suites sharing the database never see them.
@Suite("report CLI")
struct ReportCLITests {
    func liftbase(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runCLI(["report"] + arguments + ["--database-url", try TestDatabase.url()])
    }

    /// A user with, on `day`, a real strong import (7 imported, 1 skipped) and a dry run with
    /// 2 problems, and on the day after a hevy import of 3 rows. Returns the two days.
    func importFixture() throws -> (day: String, next: String) {
        let admin = try TestDatabase.admin()
        defer { admin.close() }
        let days = try admin.query(
            "select d::text, (d + 1)::text from (select date '1901-01-01' + (random() * 30000)::integer as d) as x"
        ).rows[0]
        let user = try #require(
            try admin.query(
                "insert into auth.users (email, password_hash) values ($1, 'x') returning id::text",
                [TestDatabase.uniqueEmail("report")]
            ).scalar
        )
        try admin.query(
            """
            insert into app.import_runs (user_id, format, file_sha256, dry_run, imported, skipped_duplicates, error_count, created_at)
            values ($1::uuid, 'strong', 'a', false, 7, 1, 0, $2::date + time '12:00' at time zone 'UTC'),
                   ($1::uuid, 'strong', 'b', true, 7, 0, 2, $2::date + time '13:00' at time zone 'UTC'),
                   ($1::uuid, 'hevy', 'c', false, 3, 0, 0, $3::date + time '00:00' at time zone 'UTC')
            """,
            [user, days[0], days[1]]
        )
        return (days[0]!, days[1]!)
    }

    @Test("without a name, lists every report with the first line of its comment")
    func list() throws {
        let listed = try liftbase()
        #expect(listed.status == 0)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("report ") == true)
        for (name, description) in [
            ("daily_active_users", "Users active per day"),
            ("import_outcomes", "Data imports per day and format: runs, rows imported and skipped, errors."),
            ("metrics_acknowledgement_rate", "Health metrics computed per day"),
            ("nutrition_target_adherence", "Users per diary day whose logged calories were within ±10 %"),
            ("onboarding_funnel", "Onboarding funnel by registration day"),
            ("weekly_training_volume", "Working sets per muscle and ISO week"),
        ] {
            let line = lines.first { $0.hasPrefix(name + " ") }
            #expect(line?.contains(description) == true, "\(name) is listed with its description")
        }
        // Only the first line of a comment: the rule that follows stays in the view's comment.
        #expect(!listed.stdout.contains("Sign-ins do not count"))
    }

    @Test("every report of the list runs (on Citus too), as a JSON array")
    func everyReportRuns() throws {
        _ = try importFixture()
        let listed = try liftbase()
        let names = listed.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first }
        #expect(names.count >= 6)
        for name in names {
            let run = try liftbase(String(name), "--format", "json")
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) is [Any], "\(name)")
        }
    }

    @Test("a report as an aligned table, RFC 4180 CSV and a JSON array, filtered by --from/--to")
    func formats() throws {
        let (day, next) = try importFixture()

        let table = try liftbase("import_outcomes", "--from", day, "--to", day)
        #expect(table.status == 0)
        #expect(
            table.stdout == """
                day         format  runs  dry_runs  rows_imported  rows_skipped  errors  runs_with_errors
                ----------  ------  ----  --------  -------------  ------------  ------  ----------------
                \(day)  strong     2         1              7             1       2                 1

                """
        )

        let csv = try liftbase("import_outcomes", "--from", day, "--to", next, "--format", "csv")
        #expect(csv.status == 0)
        #expect(
            csv.stdout == "day,format,runs,dry_runs,rows_imported,rows_skipped,errors,runs_with_errors\r\n"
                + "\(day),strong,2,1,7,1,2,1\r\n\(next),hevy,1,0,3,0,0,0\r\n"
        )

        let json = try liftbase("import_outcomes", "--from", next, "--to", next, "--format", "json")
        #expect(json.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["day"] as? String == next)
        #expect(rows.first?["format"] as? String == "hevy")
        #expect(rows.first?["rows_imported"] as? Int == 3)

        let none = try liftbase("import_outcomes", "--from", "1900-01-01", "--to", "1900-01-01", "--format", "json")
        #expect(none.status == 0)
        #expect(none.stdout == "[]\n")
    }

    @Test("unknown report exits 1 with one line; bad dates and formats exit 2")
    func exitCodes() throws {
        let unknown = try liftbase("no_such_report")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "liftbase: no report named 'no_such_report' (run `liftbase report` for the list)\n")

        for arguments in [
            ["import_outcomes", "--from", "2026-02-30"], ["import_outcomes", "--to", "yesterday"],
            ["import_outcomes", "--from", "2026-03-02", "--to", "2026-03-01"],
            ["import_outcomes", "--format", "xml"], ["--from", "2026-03-01"],
        ] {
            let result = try runCLI(["report"] + arguments + ["--database-url", try TestDatabase.url()])
            #expect(result.status == 2, "\(arguments) is a usage error")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("reports run as liftbase_reporter: a view it was not granted is neither listed nor readable")
    func runsAsReporter() throws {
        let admin = try TestDatabase.admin()
        defer { admin.close() }
        let view = "probe_" + TestDatabase.uniqueSuffix()
        try admin.execute("create view reporting.\(view) as select current_date as day, 1 as one")
        defer { _ = try? admin.execute("drop view reporting.\(view)") }

        #expect(!(try liftbase().stdout.contains(view)))
        let denied = try liftbase(view)
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("permission denied"))
        #expect(denied.stderr.split(separator: "\n").count == 1)
    }
}

@Suite("report output")
struct ReportOutputTests {
    @Test("CSV quotes commas, quotes and line breaks, doubles inner quotes, ends records with CRLF")
    func csv() {
        let text = ReportOutput.csv(
            columns: ["name", "note"],
            rows: [["a,b", "say \"hi\""], [nil, "two\nlines"], ["plain", ""]]
        )
        #expect(text == "name,note\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n,\"two\nlines\"\r\nplain,\r\n")
    }

    @Test("tables right-align numeric columns and left-align the rest")
    func table() {
        let text = ReportOutput.table(columns: ["muscle", "sets"], rows: [["chest", "4.0"], ["quadriceps", "12.5"]])
        #expect(text == "muscle      sets\n----------  ----\nchest        4.0\nquadriceps  12.5\n")
    }
}
