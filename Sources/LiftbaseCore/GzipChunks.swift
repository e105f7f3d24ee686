import CZlib
import Foundation

/// A gzip file read and inflated in chunks, for COPY: the built-in catalogs ship compressed.
/// As with `FileChunks`, a read or inflate failure is an error, never an early end.
public final class GzipChunks {
    private let file: FileChunks
    private var stream = z_stream()
    private var input: [UInt8] = []
    /// How much of `input` zlib has taken: its pointers are set afresh on every call, since
    /// a pointer into an array is valid only inside the closure that lends it.
    private var consumed = 0
    private var ended = false
    private let path: String

    public init(url: URL) throws {
        file = try FileChunks(url: url)
        path = url.path
        guard czlib_inflate_init_gzip(&stream) == Z_OK else {
            throw FileChunksError(path: path, reason: "cannot start inflating")
        }
    }

    deinit { inflateEnd(&stream) }

    /// The next inflated chunk, or nil at the end of the compressed data.
    public func next() throws -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: FileChunks.chunkSize)
        while !ended {
            if consumed == input.count {
                guard let chunk = try file.next() else {
                    throw FileChunksError(path: path, reason: "the compressed data ends early")
                }
                input = chunk
                consumed = 0
            }
            let offset = consumed
            let (status, produced, taken) = input.withUnsafeMutableBufferPointer { inputBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer -> (Int32, Int, Int) in
                    stream.next_in = inputBuffer.baseAddress! + offset
                    stream.avail_in = uInt(inputBuffer.count - offset)
                    stream.next_out = outputBuffer.baseAddress
                    stream.avail_out = uInt(outputBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    let taken = inputBuffer.count - offset - Int(stream.avail_in)
                    stream.next_in = nil
                    stream.avail_in = 0
                    return (status, outputBuffer.count - Int(stream.avail_out), taken)
                }
            }
            consumed += taken
            switch status {
            case Z_STREAM_END: ended = true
            case Z_OK, Z_BUF_ERROR: break
            default: throw FileChunksError(path: path, reason: "not valid gzip data (zlib status \(status))")
            }
            if produced > 0 { return Array(output[0..<produced]) }
        }
        return nil
    }

    /// The whole inflated content (a small file: the exercise catalog).
    public static func contents(of url: URL) throws -> Data {
        let chunks = try GzipChunks(url: url)
        var data = Data()
        while let chunk = try chunks.next() { data.append(contentsOf: chunk) }
        return data
    }
}
