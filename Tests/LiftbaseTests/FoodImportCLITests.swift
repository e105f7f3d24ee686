import Foundation
import PQ
import Testing

/// The food importers on small fixture files in each format (Tests/Fixtures), each run
/// twice: the second run must update, never duplicate.
@Suite("food import CLI")
struct FoodImportCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    func foods(_ url: String, _ source: String) throws -> [[String?]] {
        try Connection(url).query(
            """
            select name, coalesce(brand, ''), coalesce(barcode, ''), energy_kcal::text, protein_g::text,
                   coalesce(sodium_mg::text, ''), serving_label, serving_g::text,
                   (select count(*) from app.food_portions p where p.food_id = f.id)::text
              from app.foods f where source = $1 order by name
            """,
            [source]
        ).rows
    }

    /// Runs `liftbase import ARGUMENTS`, expecting success; its stdout. A failure is recorded
    /// with what the command printed to stderr, which says why.
    func importFoods(_ arguments: [String]) async throws -> String {
        let run = try await runCLIOffThePool(["import"] + arguments)
        #expect(run.status == 0, "liftbase import \(arguments[0]) failed: \(run.stderr)")
        return run.stdout
    }

    @Test("fdc-csv: energy 1008 else Atwater, portions, branded barcode; idempotent")
    func fdc() async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let folder = Self.fixtures.appendingPathComponent("fdc").path
            let first = try await importFoods(["fdc-csv", folder, "--database-url", url])
            #expect(first.contains("food_nutrient.csv: 11 rows"))
            let expected: [[String?]] = [
                ["Apples, fuji, with skin, raw", "", "", "64.7", "0.15", "", "1 medium apple", "192", "1"],
                ["GREEK YOGURT, PLAIN", "FAGE", "0689544080015", "59", "10", "", "1 container", "170", "0"],
                ["Hummus, commercial", "", "", "166", "7.9", "379", "1 tbsp", "15", "2"],
            ]
            #expect(try foods(url, "fdc") == expected)
            _ = try await importFoods(["fdc-csv", folder, "--database-url", url])
            #expect(try foods(url, "fdc") == expected)
        }
    }

    @Test("off-csv: per 100 g, sodium in grams, serving quantity, duplicates and no-energy rows skipped; idempotent")
    func off() async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let file = Self.fixtures.appendingPathComponent("off/products.tsv").path
            let first = try await importFoods(["off-csv", file, "--database-url", url])
            #expect(first.contains(#""skipped": 2"#))
            let expected: [[String?]] = [
                ["Coca-Cola \"Original\"", "Coca-Cola", "5449000000996", "42", "0", "0", "330 ml", "330", "0"],
                ["Nutella", "Ferrero", "3017620422003", "539", "6.3", "42.8000", "15 g", "15", "0"],
            ]
            #expect(try foods(url, "off") == expected)
            _ = try await importFoods(["off-csv", file, "--database-url", url])
            #expect(try foods(url, "off") == expected)
        }
    }

    @Test("usda-sr28 on a fixture in the SR28 format (^-separated, ~-quoted, Latin-1, CRLF)")
    func usda() async throws {
        try await TestDatabase.withFreshMigratedDatabase { url in
            let folder = NSTemporaryDirectory() + "sr28-" + TestDatabase.uniqueSuffix()
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let files = [
                "FD_GROUP.txt": "~0900~^~Fruits and Fruit Juices~\r\n",
                "FOOD_DES.txt":
                    "~09040~^~0900~^~Bananas, raw~^~BANANAS,RAW~^^^~Y~^~Skin~^36^~Musa acuminata~^6.25^3.36^8.37^3.60\r\n"
                    + "~09999~^~0900~^~Pi\u{F1}a colada mix~^~PINA COLADA~^^^^^0^^^^^",
                "NUT_DATA.txt": "~09040~^~208~^89^^^~4~^^^^^^^^^^^^\r\n~09040~^~203~^1.09^^^~1~^^^^^^^^^^^^\r\n"
                    + "~09040~^~307~^1^^^~1~^^^^^^^^^^^^\r\n~09999~^~208~^120^^^~4~^^^^^^^^^^^^\r\n",
                "WEIGHT.txt": "~09040~^1^1^~cup, mashed~^225^^\r\n~09040~^2^1^~medium (7\" to 7-7/8\" long)~^118^^\r\n",
            ]
            for (name, text) in files {
                try Data(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })  // Latin-1
                    .write(to: URL(fileURLWithPath: folder + "/" + name))
            }
            _ = try await importFoods(["usda-sr28", folder, "--database-url", url])
            let expected: [[String?]] = [
                ["Bananas, raw", "", "", "89", "1.09", "1", "1 cup, mashed", "225", "2"],
                ["Pi\u{F1}a colada mix", "", "", "120", "0", "", "100 g", "100", "0"],
            ]
            #expect(try foods(url, "usda-sr28") == expected)
            _ = try await importFoods(["usda-sr28", folder, "--database-url", url])
            #expect(try foods(url, "usda-sr28") == expected)
        }
    }
}
