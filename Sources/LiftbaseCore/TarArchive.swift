/// The POSIX tar (ustar) format, as far as an archive of plain files needs it: a 512-byte
/// header before each file, the file padded to a multiple of 512 bytes, and two zero blocks
/// at the end. Every system reads it without a library (`tar -xf`), and it is written
/// file by file, so an archive of any size passes through one file's bytes at a time.
public enum TarArchive {
    public static let blockSize = 512

    /// The header of one regular file (mode 0644). `name` must be at most 100 bytes of
    /// UTF-8: the archive's names are made by SQL (`app.photo_file_name`) and are short.
    public static func header(name: String, size: Int, modified: Int) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: some Collection<UInt8>, at offset: Int) {
            for (index, byte) in bytes.enumerated() { block[offset + index] = byte }
        }
        /// A number as zero-padded octal digits that fill a field but its last byte (a NUL).
        func octal(_ value: Int, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8)
        }
        put(name.utf8.prefix(100), at: 0)
        put(octal(0o644, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)  // uid
        put(octal(0, width: 8), at: 116)  // gid
        put(octal(size, width: 12), at: 124)
        put(octal(max(0, modified), width: 12), at: 136)
        put([UInt8](repeating: 0x20, count: 8), at: 148)  // the checksum counts its own field as blanks
        block[156] = UInt8(ascii: "0")  // a regular file
        put("ustar".utf8, at: 257)
        put("00".utf8, at: 263)
        let checksum = block.reduce(0) { $0 + Int($1) }
        put(octal(checksum, width: 7), at: 148)  // six digits, a NUL, and the blank left in place
        block[154] = 0
        return block
    }

    /// The zeros that pad a file of `size` bytes to a whole number of blocks.
    public static func padding(afterFileOf size: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: (blockSize - size % blockSize) % blockSize)
    }

    /// The statement that reads an archive's files from the set-returning call `source`
    /// (columns file_name, modified_at, content), in the row shape `writeFile` takes: the
    /// endpoint's and `liftbase photos archive`'s alike.
    public static func filesStatement(from source: String) -> String {
        "select f.file_name, extract(epoch from f.modified_at)::bigint::text, f.content from \(source) as f"
    }

    /// Writes one file of an archive whose files come as rows (file name, modified time in
    /// whole seconds since 1970 as text, content), the shape of `app.photo_archive_files`.
    public static func writeFile(row: [[UInt8]?], to write: ([UInt8]) throws -> Void) throws {
        let name = String(decoding: row[0] ?? [], as: UTF8.self)
        let modified = Int(String(decoding: row[1] ?? [], as: UTF8.self)) ?? 0
        let content = row[2] ?? []
        try write(header(name: name, size: content.count, modified: modified))
        try write(content)
        try write(padding(afterFileOf: content.count))
    }

    /// The end of an archive: two zero blocks.
    public static let end = [UInt8](repeating: 0, count: 2 * blockSize)
}
