import ArgumentParser
import Foundation
import LiftbaseCore
import PQ

/// `liftbase photos`: what an operator does with an account's progress photos.
struct PhotosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "An account's progress photos.",
        subcommands: [Archive.self]
    )

    /// `liftbase photos archive`: the same archive as GET /progress-photos/archive, from the
    /// same SQL (`app.photo_archive_files`), written file by file as the rows come.
    struct Archive: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write one account's progress photos as a tar archive.",
            discussion: """
                The archive holds progress-photos.json (what each photo is, and its file) and \
                the images, oldest day first (docs/photos.md). Progress goes to standard error.
                """
        )

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The account, by email.") var user: String
        @Option(help: "The archive file (replaced); default: standard output.") var output: String?

        func run() throws {
            let connection = try database.ownerConnection()
            let userID = try connection.query("select (auth.admin_find_user($1)).id::text", [user]).scalar ?? ""
            let handle: FileHandle
            if let output {
                guard FileManager.default.createFile(atPath: output, contents: nil) else {
                    throw CommandFailure("cannot write \(output)")
                }
                handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            } else {
                handle = FileHandle.standardOutput
            }
            defer { if output != nil { try? handle.close() } }
            var files = 0
            var bytes = 0
            // Row-level security sees the account as the API would (auth.act_as).
            try connection.inTransaction {
                try connection.query("select auth.act_as($1::uuid)", [userID])
                try connection.streamByteRows(
                    TarArchive.filesStatement(from: "app.photo_archive_files($1::uuid)"),
                    [.text(userID)]
                ) { row in
                    try TarArchive.writeFile(row: row) { try handle.write(contentsOf: $0) }
                    files += 1
                    bytes += row[2]?.count ?? 0
                    if files % 50 == 0 { Self.progress("\(files - 1) photos, \(bytes / 1_048_576) MiB") }
                }
            }
            try handle.write(contentsOf: TarArchive.end)
            Self.progress("archived \(max(files - 1, 0)) photos of \(user): \(bytes) bytes")
        }

        static func progress(_ line: String) {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}
