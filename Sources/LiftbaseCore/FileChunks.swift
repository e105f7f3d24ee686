import Foundation

/// A file read in chunks, for COPY. A failed read is an error, never the end of the file:
/// a catalog cut short by a read error must fail its import, not commit what came before.
public final class FileChunks {
    public static let chunkSize = 256 * 1024
    private let handle: FileHandle
    private var ended = false

    public init(url: URL) throws {
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw FileChunksError(path: url.path, reason: "cannot open it")
        }
        self.path = url.path
    }

    private let path: String

    deinit { try? handle.close() }

    /// The next chunk, or nil at the end of the file.
    public func next() throws -> [UInt8]? {
        guard !ended else { return nil }
        let data: Data?
        do {
            data = try handle.read(upToCount: Self.chunkSize)
        } catch {
            ended = true
            throw FileChunksError(path: path, reason: "reading failed: \(error.localizedDescription)")
        }
        guard let data, !data.isEmpty else {
            ended = true
            return nil
        }
        return [UInt8](data)
    }
}

public struct FileChunksError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}
