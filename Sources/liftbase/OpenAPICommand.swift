import ArgumentParser
import Foundation
import LiftbaseCore
import LiftbaseHTTP

/// Prints the OpenAPI document `GET /openapi.json` answers, built from the endpoint table and
/// the contract files, without a database: the client generator and the API reference read it.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Print the OpenAPI 3.1 document of the API (the endpoint table and sql/contract)."
    )

    @Option(
        name: .customLong("sql-dir"),
        help: "Folder holding contract/ (default: $LIFTBASE_SQL_DIR or ./sql)."
    )
    var sqlDirectory: String?

    @Flag(help: "Exit 1 naming every endpoint that sql/contract does not describe.")
    var check = false

    func run() throws {
        let directory = try sqlDirectory ?? LiftbaseCore.Configuration().sqlDirectory
        let contract = try APIContract(directory: APIContract.directory(inSQLDirectory: directory))
        let undescribed = contract.undescribed(endpoints)
        if check && !undescribed.isEmpty {
            throw CommandFailure("no operation in sql/contract for: " + undescribed.joined(separator: ", "))
        }
        let document = OpenAPIDocument.document(for: endpoints, contract: contract)
        let data = try JSONSerialization.data(
            withJSONObject: document,
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        )
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
