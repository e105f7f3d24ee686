import ArgumentParser
import Foundation
import PQ

/// `liftbase import ...`: loads reference data. The mapping rules live in SQL; this reads
/// the file and hands it over.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import reference data.",
        subcommands: [Exercises.self]
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
}
