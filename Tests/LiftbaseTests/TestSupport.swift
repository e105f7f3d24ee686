import Foundation
import Logging

/// A log handler that keeps every line, with its metadata, for a test to read.
final class RecordedLog: @unchecked Sendable {
    struct Line {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private let lock = NSLock()
    private var stored: [Line] = []

    var lines: [Line] { lock.withLock { stored } }

    /// A logger at `level` whose lines this log keeps.
    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "recorded") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: Line) { lock.withLock { stored.append(line) } }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append(
                Line(
                    level: event.level,
                    message: event.message.description,
                    metadata: metadata.merging(event.metadata ?? [:]) { $1 }
                )
            )
        }
    }
}
