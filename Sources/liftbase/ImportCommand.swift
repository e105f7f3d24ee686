import ArgumentParser
import Foundation
import PQ

/// `liftbase import ...`: loads reference data. The mapping rules live in SQL; this reads
/// the file and hands it over.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import reference data.",
        subcommands: [Exercises.self, USDASR28.self]
    )

    struct Exercises: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a free-exercise-db JSON file into the exercise catalog (by name, never duplicating).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "exercises.json") var file: String

        func run() throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
            }
            guard let entries = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
                throw CommandFailure("\(file) is not a JSON array of exercises")
            }
            print("read \(entries.count) exercises from \(file)")
            let connection = try database.ownerConnection()
            let result = try connection.query(
                "select r ->> 'inserted', r ->> 'updated', r ->> 'skipped' from app.import_exercises($1::jsonb) as r",
                [String(decoding: data, as: UTF8.self)]).rows[0]
            print("imported: \(result[0] ?? "0") new, \(result[1] ?? "0") updated, \(result[2] ?? "0") skipped")
        }
    }

    struct USDASR28: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "usda-sr28",
            abstract: "Import the USDA SR28 ASCII files (FOOD_DES, FD_GROUP, NUT_DATA, WEIGHT) into the food catalog.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Folder with the SR28 .txt files.") var directory: String

        func run() throws {
            let files = ["FD_GROUP.txt": "usda_fd_group", "FOOD_DES.txt": "usda_food_des",
                         "WEIGHT.txt": "usda_weight", "NUT_DATA.txt": "usda_nut_data"]
            try StagedImport(database: database, name: "usda-sr28").run(
                files: files.keys.sorted().map { (URL(fileURLWithPath: directory).appendingPathComponent($0), files[$0]!) },
                copyOptions: "format csv, delimiter '^', quote '~', encoding 'latin1'",
                finish: "select app.finish_usda_import()::text")
        }
    }
}

/// An import that streams files through COPY into `staging` tables and finishes in SQL,
/// all in one transaction (nothing half-written), with progress on stdout.
struct StagedImport {
    let database: DatabaseOptions
    let name: String

    func run(files: [(URL, String)], copyOptions: String, finish: String) throws {
        for (file, _) in files where !FileManager.default.isReadableFile(atPath: file.path) {
            throw CommandFailure("cannot read \(file.path)")
        }
        let started = Date()
        let connection = try database.ownerConnection()
        try connection.execute("begin")
        do {
            // One import of a kind at a time; the staging tables are shared.
            try connection.query("select pg_advisory_xact_lock(hashtext($1))", ["liftbase.import." + name])
            for (file, table) in files {
                let fileStarted = Date()
                try connection.execute("truncate staging.\(table)")
                let rows = try connection.copyIn("copy staging.\(table) from stdin with (\(copyOptions))",
                                                 chunks: FileChunks(url: file))
                print(String(format: "%@: %d rows (%.1f s)", file.lastPathComponent, rows, Date().timeIntervalSince(fileStarted)))
            }
            print("merging into the catalog...")
            let result = try connection.query(finish).scalar ?? "{}"
            for (_, table) in files { try connection.execute("truncate staging.\(table)") }
            try connection.execute("commit")
            print(String(format: "done in %.1f s: %@", Date().timeIntervalSince(started), result))
        } catch {
            _ = try? connection.execute("rollback")
            throw error
        }
    }
}

/// A file read in 256 KiB chunks, for COPY: memory stays flat whatever the file's size.
struct FileChunks: Sequence, IteratorProtocol {
    let handle: FileHandle?

    init(url: URL) {
        handle = try? FileHandle(forReadingFrom: url)
    }

    mutating func next() -> [UInt8]? {
        guard let handle, let data = try? handle.read(upToCount: 256 * 1024), !data.isEmpty else {
            try? handle?.close()
            return nil
        }
        return [UInt8](data)
    }
}
