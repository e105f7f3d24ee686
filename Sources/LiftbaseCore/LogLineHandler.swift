import Foundation
import Logging

/// The long-running commands' log handler: one line on standard error a message, in the
/// format of swift-log's stream handler (`time level label: key=value ... [source] message`),
/// with the metadata rendered when a line is written. The stream handler renders it each
/// time it changes; the server gives each request's logger its request id, and most
/// requests log nothing at the default level, so that rendering cost 3 % of the server's
/// CPU for a cheap request.
public struct LogLineHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: @Sendable (String) -> Void

    /// `output` takes each line, its newline included; by default it goes to standard error
    /// whole, one line at a time, so lines from several threads never interleave.
    public init(
        label: String,
        metadataProvider: Logger.MetadataProvider? = nil,
        output: @escaping @Sendable (String) -> Void = Self.writeToStandardError
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata { all.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let rendered = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let line = "\(Self.timestamp()) \(event.level) \(label):\(rendered) [\(event.source)] \(event.message)"
        output(Self.oneLine(line) + "\n")
    }

    /// An entry is one line whatever it quotes (a database error's detail, a program's
    /// output): line breaks are written as `\n`, so a log reader never splits an entry.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\n")
    }

    public static func writeToStandardError(_ line: String) {
        let bytes = Array(line.utf8)
        standardErrorLock.withLock {
            bytes.withUnsafeBytes { buffer in
                var written = 0
                while written < buffer.count {
                    let result = write(STDERR_FILENO, buffer.baseAddress! + written, buffer.count - written)
                    if result > 0 {
                        written += result
                    } else if result < 0 && errno == EINTR {
                        continue
                    } else {
                        return  // Standard error is gone: nowhere left to say so.
                    }
                }
            }
        }
    }

    private static let standardErrorLock = NSLock()

    /// Local time to the second with its offset, as the stream handler writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
