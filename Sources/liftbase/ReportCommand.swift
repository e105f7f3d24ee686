import ArgumentParser
import Foundation
import LiftbaseCore
import PQ

/// `liftbase report [NAME]`: the views of the `reporting` schema. Runs as liftbase_reporter
/// (SET ROLE on its own connection), so what it can read is exactly what that role can read:
/// a report that works here proves the permission model, not an administrator's rights.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "List the reports, or run one as the reporting role.",
        discussion: """
            Without NAME, lists every view of the reporting schema with the first line of its comment. \
            --from/--to filter a report's date column (its first column of type date), both inclusive.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
    }

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The report (a view of the reporting schema); omit to list them.") var name: String?
    @Option(help: "First day, YYYY-MM-DD (inclusive).") var from: String?
    @Option(help: "Last day, YYYY-MM-DD (inclusive).") var to: String?
    @Option(help: "table, csv (RFC 4180) or json (an array of objects).") var format: Format = .table

    func validate() throws {
        for (flag, value) in [("--from", from), ("--to", to)] {
            if let value, ReportCommand.day(value) == nil {
                throw ValidationError("\(flag) must be a date as YYYY-MM-DD, not '\(value)'")
            }
        }
        if let from, let to, from > to { throw ValidationError("--from must not be after --to") }
        if name == nil && (from != nil || to != nil) { throw ValidationError("--from/--to need a report NAME") }
    }

    func run() throws {
        let connection = try Connection(try database.configuration().requireDatabaseURL())
        defer { connection.close() }
        // Apart, as in ownerConnection: Citus refuses a SET ROLE sent on within a block.
        try connection.execute("set role liftbase_reporter")
        try connection.execute(LiftbaseCore.Configuration.sessionSetup)
        if let name {
            print(try report(name, on: connection), terminator: "")
        } else {
            let reports = try connection.query(
                """
                select c.relname::text, split_part(coalesce(obj_description(c.oid, 'pg_class'), ''), E'\\n', 1)
                  from pg_class as c join pg_namespace as n on n.oid = c.relnamespace
                 where n.nspname = 'reporting' and c.relkind = 'v' and has_table_privilege(c.oid, 'select')
                 order by 1
                """
            )
            printTable(header: ["report", "description"], rows: reports.rows)
        }
    }

    private func report(_ name: String, on connection: Connection) throws -> String {
        let view = try connection.query(
            """
            select format('reporting.%I', c.relname),
                   (select quote_ident(a.attname) from pg_attribute as a
                     where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.atttypid = 'date'::regtype
                     order by a.attnum limit 1)
              from pg_class as c join pg_namespace as n on n.oid = c.relnamespace
             where n.nspname = 'reporting' and c.relkind = 'v' and c.relname = $1
            """,
            [name]
        )
        guard let row = view.rows.first, let relation = row[0] else {
            throw CommandFailure("no report named '\(name)' (run `liftbase report` for the list)")
        }
        var sql = "select * from \(relation)"
        var parameters: [String?] = []
        if from != nil || to != nil {
            guard let dateColumn = row[1] else {
                throw ValidationError("report \(name) has no date column: drop --from/--to")
            }
            sql +=
                " where ($1::date is null or \(dateColumn) >= $1::date) and ($2::date is null or \(dateColumn) <= $2::date)"
            parameters = [from, to]
        }
        sql += " order by 1, 2"
        switch format {
        case .json:
            let json = try connection.query("select coalesce(json_agg(r), '[]') from (\(sql)) as r", parameters).scalar
            return (json ?? "[]") + "\n"
        case .csv:
            let result = try connection.query(sql, parameters)
            return ReportOutput.csv(columns: result.columns, rows: result.rows)
        case .table:
            let result = try connection.query(sql, parameters)
            return ReportOutput.table(columns: result.columns, rows: result.rows)
        }
    }

    /// A calendar day written YYYY-MM-DD (2026-02-30 is not one).
    static func day(_ text: String) -> DateComponents? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components) else { return nil }
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        return back.year == year && back.month == month && back.day == day ? components : nil
    }
}
