import Foundation
import LiftbaseCore
import Testing

@Suite("built-in catalog files")
struct BuiltinCatalogTests {
    let exercises = URL(fileURLWithPath: TestDatabase.sqlDirectory + "/data/free-exercise-db.json.gz")

    @Test("a shipped gzip file inflates whole: the 873 exercises of the free-exercise-db")
    func inflates() throws {
        let parsed = try JSONSerialization.jsonObject(with: try GzipChunks.contents(of: exercises)) as? [[String: Any]]
        #expect(parsed?.count == 873)
        #expect(parsed?.first?["name"] as? String == "3/4 Sit-Up")
    }

    @Test("a gzip file cut short is an error, never a shorter catalog")
    func truncatedIsAnError() throws {
        let bytes = try Data(contentsOf: exercises)
        let cut = URL(fileURLWithPath: NSTemporaryDirectory() + "cut-" + TestDatabase.uniqueSuffix() + ".json.gz")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        defer { try? FileManager.default.removeItem(at: cut) }
        let error = #expect(throws: FileChunksError.self) { try GzipChunks.contents(of: cut) }
        #expect(error?.reason == "the compressed data ends early")
    }

    @Test("a file that is not gzip is an error")
    func notGzip() throws {
        let plain = URL(fileURLWithPath: TestDatabase.sqlDirectory + "/bootstrap.sql")
        #expect(throws: FileChunksError.self) { try GzipChunks.contents(of: plain) }
    }
}
