import ArgumentParser
import Foundation
import PQ

/// `liftbase export`: one account's data, produced by the same SQL as GET /export and
/// streamed row by row to the output, so a years-long history is never held in memory.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export one account's data.",
        discussion: """
            --format json (the default) writes the liftbase-export document (docs/export-format.md) \
            to standard output, or to --output FILE.
            --format csv with --type writes that one file (workouts in Strong's layout, nutrition, \
            body_metrics) to standard output or --output FILE; without --type it writes all three \
            as workouts.csv, nutrition.csv and body_metrics.csv into the folder --output DIR \
            (created when missing).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, csv }
    enum FileType: String, ExpressibleByArgument, CaseIterable {
        case workouts, nutrition, body_metrics
        /// The SQL function that produces the file's rows.
        var function: String { "app.\(rawValue)_csv" }
    }

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The account, by email.") var user: String
    @Option(help: "json or csv.") var format: Format = .json
    @Option(help: "With --format csv: only this file (workouts, nutrition, body_metrics).") var type: FileType?
    @Option(help: "A file (a folder for all three CSV files); default: standard output.") var output: String?

    func validate() throws {
        if format == .json && type != nil { throw ValidationError("--type goes with --format csv") }
        if format == .csv && type == nil && output == nil {
            throw ValidationError("--format csv without --type writes three files: give --output DIR")
        }
    }

    func run() throws {
        let connection = try database.ownerConnection()
        // Timestamps in UTC, as the document promises.
        let userID =
            try connection.query(
                "select (auth.admin_find_user($1)).id::text, set_config('TimeZone', 'UTC', false)",
                [user]
            ).scalar ?? ""
        switch (format, type) {
        case (.json, _):
            try write("select chunk from app.export_document($1::uuid) as chunk", userID, on: connection, to: output)
        case (.csv, let type?):
            try write("select line from \(type.function)($1::uuid) as line", userID, on: connection, to: output)
        case (.csv, nil):
            let folder = URL(fileURLWithPath: output ?? ".")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for type in FileType.allCases {
                let path = folder.appendingPathComponent("\(type.rawValue).csv").path
                try write("select line from \(type.function)($1::uuid) as line", userID, on: connection, to: path)
            }
        }
    }

    /// Streams the rows of `sql` to a file (replaced) or to standard output.
    private func write(_ sql: String, _ userID: String, on connection: Connection, to path: String?) throws {
        let handle: FileHandle
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CommandFailure("cannot write \(path)")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        } else {
            handle = FileHandle.standardOutput
        }
        defer { if path != nil { try? handle.close() } }
        // Row-level security sees the account as the API would: the user is the block's
        // (auth.act_as), which is also how Citus's workers learn it.
        try connection.inTransaction {
            try connection.query("select auth.act_as($1::uuid)", [userID])
            try connection.writeRows(sql, [userID], to: handle)
        }
    }
}
