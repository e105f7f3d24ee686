import Foundation
import LiftbaseCore
import PQ

/// The catalogs Liftbase ships under sql/data, made by Scripts/derive-catalogs from the
/// public-domain originals: the USDA SR28 foods with their household portions, and the
/// free-exercise-db exercises (merged by name with the built-in ones); and, made by
/// Scripts/derive-exercise-aliases, the other apps' names of those exercises. `liftbase migrate`
/// loads each through the same SQL as `liftbase import`, and records the checksum of its
/// files: a catalog is loaded again only when its shipped files change, so a second run
/// changes nothing, and operator imports on top of it are kept.
struct BuiltinCatalogs {
    let database: DatabaseOptions
    let folder: URL

    static let usdaFiles = [
        ("FD_GROUP.csv.gz", "usda_fd_group"), ("FOOD_DES.csv.gz", "usda_food_des"),
        ("NUT_DATA.csv.gz", "usda_nut_data"), ("WEIGHT.csv.gz", "usda_weight"),
    ]
    static let exercisesFile = "free-exercise-db.json.gz"
    static let aliasesFile = "exercise-aliases.tsv"

    func load() throws {
        let usda = Self.usdaFiles.map { (folder.appendingPathComponent("usda-sr28/" + $0.0), $0.1) }
        try loadIfChanged("usda-sr28", files: usda.map(\.0)) {
            try StagedImport(database: database, name: "usda-sr28").run(
                files: usda,
                copyOptions: "format csv, header true, delimiter '^', quote '~', encoding 'utf8'",
                headerDelimiter: "^",
                finish: "select app.finish_usda_import()::text"
            )
        }
        let exercises = folder.appendingPathComponent(Self.exercisesFile)
        try loadIfChanged("free-exercise-db", files: [exercises]) {
            let json = String(decoding: try GzipChunks.contents(of: exercises), as: UTF8.self)
            let result = try database.ownerConnection().query(
                "select r ->> 'inserted', r ->> 'updated', r ->> 'skipped' from app.import_exercises($1::jsonb) as r",
                [json]
            ).rows[0]
            print("exercises: \(result[0] ?? "0") new, \(result[1] ?? "0") updated, \(result[2] ?? "0") skipped")
        }
        // The aliases name exercises: loaded again when either file changes.
        let aliases = folder.appendingPathComponent(Self.aliasesFile)
        try loadIfChanged("exercise-aliases", files: [exercises, aliases]) {
            let rows = try Self.aliasRows(String(decoding: Data(contentsOf: aliases), as: UTF8.self))
            let result = try database.ownerConnection().query(
                """
                select r ->> 'aliases', r ->> 'exercises', r ->> 'unmatched', r ->> 'unknown'
                  from app.load_exercise_aliases($1::jsonb) as r
                """,
                [rows]
            ).rows[0]
            print(
                "aliases: \(result[0] ?? "0") for \(result[1] ?? "0") exercises, \(result[2] ?? "0") names the catalog lacks, "
                    + "\(result[3] ?? "0") naming none"
            )
        }
    }

    /// exercise-aliases.tsv (a header, then `alias`, `exercise`, `sources` split by tabs) as the
    /// JSON list app.load_exercise_aliases reads: `[{"alias": ..., "exercise": ..., "sources": ...}]`.
    static func aliasRows(_ text: String) throws -> String {
        var items: [[String: String]] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2 else {
                throw CommandFailure("built-in catalog exercise-aliases: a line without its exercise: \(line)")
            }
            items.append([
                "alias": String(fields[0]), "exercise": String(fields[1]),
                "sources": fields.count > 2 ? String(fields[2]) : "",
            ])
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: items), as: UTF8.self)
    }

    /// Runs `load` when the files' checksum differs from the one recorded for `name`, then
    /// records it.
    private func loadIfChanged(_ name: String, files: [URL], load: () throws -> Void) throws {
        var bytes = Data()
        for file in files {
            do {
                bytes.append(try Data(contentsOf: file))
            } catch {
                throw CommandFailure("built-in catalog \(name): cannot read \(file.path)")
            }
        }
        let checksum = SHA256.hex(Array(bytes))
        let connection = try database.ownerConnection()
        defer { connection.close() }
        let recorded = try connection.query(
            "select checksum from liftbase_meta.builtin_catalogs where name = $1",
            [name]
        ).scalar
        guard recorded != checksum else {
            print("built-in catalog \(name): up to date")
            return
        }
        print("built-in catalog \(name): loading...")
        let started = ContinuousClock.now
        try load()
        try connection.query(
            """
            insert into liftbase_meta.builtin_catalogs (name, checksum) values ($1, $2)
            on conflict (name) do update set checksum = excluded.checksum, loaded_at = now()
            """,
            [name, checksum]
        )
        print(
            String(
                format: "built-in catalog %@: loaded in %.1f s",
                name,
                (ContinuousClock.now - started).milliseconds / 1000
            )
        )
    }
}
