import Foundation

/// A temporary file that exists only as an open descriptor: it is unlinked the moment it is
/// made, so the system reclaims it when the handle closes, however the response ends.
enum SpoolFile {
    static func make() throws -> FileHandle {
        var template = Array((FileManager.default.temporaryDirectory.path + "/liftbase-spool.XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
