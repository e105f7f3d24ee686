import Foundation

/// `runCLI`, waited for off the cooperative pool the suite's tests share (a child process
/// may take seconds, more on Citus).
func runCLIOffThePool(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await TestDatabase.offThePool { try runCLI(arguments) }
}

func runCLI(
    _ arguments: [String],
    environment: [String: String] = [:],
    unsetting unset: [String] = []
) throws -> (status: Int32, stdout: String, stderr: String) {
    let binary = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/liftbase")
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        .filter { !unset.contains($0.key) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
