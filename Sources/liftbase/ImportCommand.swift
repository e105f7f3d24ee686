import ArgumentParser
import Foundation
import LiftbaseCore
import PQ

/// `liftbase import ...`: loads reference data. The mapping rules live in SQL; this reads
/// the file and hands it over.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import reference data.",
        subcommands: [Exercises.self, USDASR28.self, FDCCSV.self, OFFCSV.self]
    )

    struct Exercises: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge a free-exercise-db JSON file into the exercise catalog (by name, never duplicating)."
        )
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
                [String(decoding: data, as: UTF8.self)]
            ).rows[0]
            print("imported: \(result[0] ?? "0") new, \(result[1] ?? "0") updated, \(result[2] ?? "0") skipped")
        }
    }

    struct USDASR28: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "usda-sr28",
            abstract: "Import the USDA SR28 ASCII files (FOOD_DES, FD_GROUP, NUT_DATA, WEIGHT) into the food catalog."
        )
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Folder with the SR28 .txt files.") var directory: String

        func run() throws {
            let files = [
                "FD_GROUP.txt": "usda_fd_group", "FOOD_DES.txt": "usda_food_des",
                "WEIGHT.txt": "usda_weight", "NUT_DATA.txt": "usda_nut_data",
            ]
            try StagedImport(database: database, name: "usda-sr28").run(
                files: files.keys.sorted().map {
                    (URL(fileURLWithPath: directory).appendingPathComponent($0), files[$0]!)
                },
                copyOptions: "format csv, delimiter '^', quote '~', encoding 'latin1'",
                finish: "select app.finish_usda_import()::text"
            )
        }
    }
}

extension ImportCommand {
    struct FDCCSV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fdc-csv",
            abstract:
                "Import FoodData Central CSV files (food, nutrient, food_nutrient; food_portion and branded_food when present)."
        )
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "Folder with the FoodData Central .csv files.") var directory: String

        func run() throws {
            let folder = URL(fileURLWithPath: directory)
            let required = [
                "food.csv": "fdc_food", "nutrient.csv": "fdc_nutrient", "food_nutrient.csv": "fdc_food_nutrient",
            ]
            let optional = ["food_portion.csv": "fdc_food_portion", "branded_food.csv": "fdc_branded_food"]
            var files = required.keys.sorted().map { (folder.appendingPathComponent($0), required[$0]!) }
            for name in optional.keys.sorted() {
                let url = folder.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.path) {
                    files.append((url, optional[name]!))
                } else {
                    print("\(name): not present, skipped")
                }
            }
            try StagedImport(database: database, name: "fdc").run(
                files: files,
                copyOptions: "format csv, header true",
                headerDelimiter: ",",
                alsoEmpty: optional.values.sorted(),
                finish: "select app.finish_fdc_import()::text"
            )
        }
    }

    struct OFFCSV: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off-csv",
            abstract: "Import an Open Food Facts tab-separated export."
        )
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The .csv/.tsv export (tab-separated, with a header row).") var file: String

        func run() throws {
            // Tab-separated with no quoting: a quote character that never occurs keeps
            // quotes in product names as they are.
            try StagedImport(database: database, name: "off").run(
                files: [(URL(fileURLWithPath: file), "off_products")],
                copyOptions: "format csv, header true, delimiter E'\\t', quote E'\\x01'",
                headerDelimiter: "\t",
                finish: "select app.finish_off_import()::text"
            )
        }
    }
}

/// An import that streams files through COPY into `staging` tables and finishes in SQL,
/// all in one transaction (nothing half-written), with progress on stdout.
struct StagedImport {
    let database: DatabaseOptions
    let name: String

    /// With `headerDelimiter`, each file's header names its columns: any the staging table
    /// lacks are added (as text) and COPY maps columns by name, so files of other releases
    /// with more or fewer columns load. `alsoEmpty` lists staging tables to empty although
    /// no file fills them (optional files that are absent).
    func run(
        files: [(URL, String)],
        copyOptions: String,
        headerDelimiter: Character? = nil,
        alsoEmpty: [String] = [],
        finish: String
    ) throws {
        for (file, _) in files where !FileManager.default.isReadableFile(atPath: file.path) {
            throw CommandFailure("cannot read \(file.path)")
        }
        let started = Date()
        let connection = try database.ownerConnection()
        try connection.execute("begin")
        do {
            // One import of a kind at a time; the staging tables are shared.
            try connection.query("select pg_advisory_xact_lock(hashtext($1))", ["liftbase.import." + name])
            for table in alsoEmpty { try connection.execute("truncate staging.\(table)") }
            for (file, table) in files {
                let fileStarted = Date()
                try connection.execute("truncate staging.\(table)")
                var columns = ""
                if let headerDelimiter {
                    let names = try headerColumns(of: file, delimiter: headerDelimiter)
                    for name in names {
                        try connection.execute(
                            "alter table staging.\(table) add column if not exists \(quoteIdentifier(name)) text"
                        )
                    }
                    columns = " (" + names.map(quoteIdentifier).joined(separator: ", ") + ")"
                }
                let rows = try connection.copyIn(
                    "copy staging.\(table)\(columns) from stdin with (\(copyOptions))",
                    reading: try chunkReader(for: file)
                )
                print(
                    String(
                        format: "%@: %d rows (%.1f s)",
                        file.lastPathComponent,
                        rows,
                        Date().timeIntervalSince(fileStarted)
                    )
                )
            }
            print("merging into the catalog...")
            let result = try connection.query(finish).scalar ?? "{}"
            for (_, table) in files { try connection.execute("truncate staging.\(table)") }
            for table in alsoEmpty { try connection.execute("truncate staging.\(table)") }
            try connection.execute("commit")
            // Fresh statistics for the planner, and the full-text index's pending entries
            // merged, so searches right after a large import keep to their fast plans.
            try connection.execute("vacuum (analyze) app.foods, app.food_name_words")
            print(String(format: "done in %.1f s: %@", Date().timeIntervalSince(started), result))
        } catch {
            _ = try? connection.execute("rollback")
            throw error
        }
    }
}

/// The file's bytes in chunks, inflated when its name ends in `.gz` (the shipped catalogs).
func chunkReader(for file: URL) throws -> () throws -> [UInt8]? {
    if file.pathExtension == "gz" { return try GzipChunks(url: file).next }
    return try FileChunks(url: file).next
}

/// The column names in a file's first line.
func headerColumns(of file: URL, delimiter: Character) throws -> [String] {
    let head = try chunkReader(for: file)() ?? []
    let firstLine = String(decoding: head.prefix { $0 != 10 }, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines
    )
    let names = firstLine.split(separator: delimiter, omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
    guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && $0.count <= 63 }) else {
        throw CommandFailure("\(file.lastPathComponent): the first line is not a header of column names")
    }
    return names
}
