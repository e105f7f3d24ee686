import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiftbaseCore
import Testing

/// Progress photos over HTTP (docs/photos.md): bytes in as the body, out as the answer,
/// unchanged but for their location; the format judged by the bytes, not the name; the
/// cache headers of an image; an archive that `tar` reads. Every answer is checked against
/// the contract by the test client.
@Suite("progress photos over HTTP")
struct PhotosHTTPTests {
    /// A small JPEG whose EXIF block says the photo was taken at 52°31'12.34" N, rotated
    /// (Orientation 6): the GPS values are the bytes of `latitude`.
    static let latitude: [UInt8] = rational(52, 1) + rational(31, 1) + rational(1234, 100)
    static let orientationEntry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
    static let jpegWithLocation: [UInt8] = {
        var tiff: [UInt8] = Array("II".utf8) + [0x2A, 0, 8, 0, 0, 0]
        // IFD0 at 8: Orientation, and the GPS IFD's offset (38).
        tiff += [2, 0] + orientationEntry + [0x25, 0x88, 4, 0, 1, 0, 0, 0, 38, 0, 0, 0] + [0, 0, 0, 0]
        // The GPS IFD at 38: GPSLatitudeRef "N" (inline), GPSLatitude (3 rationals at 68).
        tiff +=
            [2, 0] + [1, 0, 2, 0, 2, 0, 0, 0, 0x4E, 0, 0, 0] + [2, 0, 5, 0, 3, 0, 0, 0, 68, 0, 0, 0] + [0, 0, 0, 0]
        tiff += latitude
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        let length = app1.count + 2
        let scan: [UInt8] = [0xFF, 0xDA, 0, 4, 0x11, 0x22] + Array(repeating: 0x5A, count: 200)
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1 + scan + [0xFF, 0xD9]
    }()
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 64)

    static func rational(_ numerator: UInt32, _ denominator: UInt32) -> [UInt8] {
        withUnsafeBytes(of: numerator.littleEndian, Array.init)
            + withUnsafeBytes(of: denominator.littleEndian, Array.init)
    }

    @Test("a JPEG is stored without its GPS block and served with its hash, cache headers and 304")
    func uploadStripsLocation() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "photo-gps")
            let upload = try await client.upload(
                "/progress-photos?taken_on=2024-05-01&pose=side",
                Self.jpegWithLocation,
                contentType: "image/jpeg",
                token: token
            )
            #expect(upload.status == .created, "\(upload.text)")
            #expect(upload["pose"] as? String == "side")
            #expect(upload["taken_on"] as? String == "2024-05-01")
            let id = try #require(upload["id"] as? Int)
            let sha256 = try #require(upload["sha256"] as? String)

            let image = try await client.fetch("/progress-photos/\(id)/image", token: token)
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/jpeg")
            #expect(image.headers[.eTag] == "\"\(sha256)\"")
            #expect(image.headers[.cacheControl] == "private, max-age=31536000, immutable")
            #expect(image.bytes.count == Self.jpegWithLocation.count, "the location is zeroed in place")
            #expect(!image.bytes.contains(Self.latitude), "the GPS values are gone")
            #expect(image.bytes.contains(Self.orientationEntry), "the orientation stays")
            #expect(Array(image.bytes.suffix(202)) == Array(Self.jpegWithLocation.suffix(202)), "the scan is unchanged")
            #expect(SHA256.hex(image.bytes) == sha256)
            #expect(upload["byte_size"] as? Int == image.bytes.count)

            let again = try await client.fetch(
                "/progress-photos/\(id)/image",
                token: token,
                headers: [.ifNoneMatch: "\"\(sha256)\""]
            )
            #expect(again.status == .notModified)
            #expect(again.bytes.isEmpty)
            let stranger = try await registerUser(client, "photo-stranger")
            #expect(try await client.fetch("/progress-photos/\(id)/image", token: stranger).status == .notFound)
        }
    }

    @Test("the format is what the bytes are: a false Content-Type or no image is 415, nothing stored")
    func formatByMagicBytes() async throws {
        try await withTestClient { client in
            let token = try await registerUser(client, "photo-format")
            let mislabelled = try await client.upload(
                "/progress-photos",
                Self.png,
                contentType: "image/jpeg",
                token: token
            )
            #expect(mislabelled.status == .unsupportedMediaType)
            #expect(mislabelled.errorCode == "content_type_mismatch")
            #expect(mislabelled["error", "detected_type"] as? String == "image/png")
            let text = try await client.upload(
                "/progress-photos",
                Array("not an image".utf8),
                contentType: "image/png",
                token: token
            )
            #expect(text.errorCode == "unsupported_image")
            let empty = try await client.upload("/progress-photos", [], contentType: "image/png", token: token)
            #expect(empty.errorCode == "unsupported_image")
            let named = try await client.upload(
                "/progress-photos?content_type=image/png",
                Self.png,
                contentType: "image/jpeg",
                token: token
            )
            #expect(named.status == .badRequest, "only the header names the type")
            let list = try await client.send(.get, "/progress-photos", token: token)
            #expect((list["items"] as? [Any])?.isEmpty == true)
            #expect(
                try await client.upload("/progress-photos", Self.png, contentType: "image/png; q=1", token: token)
                    .status == .created
            )
            // Names clients really send, and a client that does not know: the bytes decide.
            for contentType in ["image/jpg", "application/octet-stream"] {
                let upload = try await client.upload(
                    "/progress-photos",
                    Self.jpegWithLocation,
                    contentType: contentType,
                    token: token
                )
                #expect(upload.status == .created, "\(contentType): \(upload.text)")
                #expect(upload["content_type"] as? String == "image/jpeg")
            }
        }
    }

    @Test("list, retry by client_id, correct, archive as tar, delete")
    func lifecycle() async throws {
        try await withTestClient { client in
            let email = TestDatabase.uniqueEmail("photo-life")
            let registered = try await client.send(
                .post,
                "/auth/register",
                ["email": email, "password": "a good password"]
            )
            let token = try #require(registered["token"] as? String)
            let clientID = UUID().uuidString.lowercased()
            let first = try await client.upload(
                "/progress-photos?taken_on=2024-01-02&client_id=\(clientID)",
                Self.png,
                contentType: "image/png",
                token: token
            )
            #expect(first.status == .created)
            let retried = try await client.upload(
                "/progress-photos?taken_on=2024-01-02&client_id=\(clientID)",
                Self.png,
                contentType: "image/png",
                token: token
            )
            #expect(retried.status == .ok)
            #expect(retried["id"] as? Int == first["id"] as? Int)
            let empty = try await client.upload(
                "/progress-photos?taken_on=2024-01-02&client_id=\(clientID)",
                [],
                contentType: "image/png",
                token: token
            )
            #expect(empty.errorCode == "unsupported_image", "a retry without its image is refused like any upload")
            let waist = try await client.send(
                .post,
                "/user/measurements",
                ["measure": "waist", "value": 80],
                token: token
            )
            let waistID = try #require(waist["id"] as? Int)
            let second = try await client.upload(
                "/progress-photos?taken_on=2024-03-04&pose=back&measurement_id=\(waistID)",
                Self.jpegWithLocation,
                contentType: "image/jpeg",
                token: token
            )
            let firstID = try #require(first["id"] as? Int)
            let secondID = try #require(second["id"] as? Int)
            #expect(second["measurement_id"] as? Int == waistID)
            // The measurement deleted, the photo stays, unlinked (on Citus by a trigger).
            #expect(try await client.send(.delete, "/user/measurements/\(waistID)", token: token).status == .noContent)
            let unlinked = try await client.send(.get, "/progress-photos/\(secondID)", token: token)
            #expect(unlinked.body.keys.contains("measurement_id") && unlinked["measurement_id"] is NSNull)

            let page = try await client.send(.get, "/progress-photos?limit=1", token: token)
            #expect((page["items"] as? [[String: Any]])?.first?["id"] as? Int == secondID, "newest day first")
            let cursor = try #require(page["next_cursor"] as? String)
            let rest = try await client.send(.get, "/progress-photos?limit=1&cursor=\(cursor)", token: token)
            #expect((rest["items"] as? [[String: Any]])?.first?["id"] as? Int == firstID)
            let fronts = try await client.send(.get, "/progress-photos?pose=front", token: token)
            #expect((fronts["items"] as? [[String: Any]])?.map { $0["id"] as? Int } == [firstID])

            let moved = try await client.send(.patch, "/progress-photos/\(firstID)", ["pose": "side"], token: token)
            #expect(moved["pose"] as? String == "side")
            let unknown = try await client.send(.patch, "/progress-photos/\(firstID)", ["angle": 1], token: token)
            #expect(unknown.status == .unprocessableContent)

            let archive = try await client.fetch("/progress-photos/archive", token: token)
            #expect(archive.headers[.contentType] == "application/x-tar")
            let files = try Self.untar(archive.bytes)
            #expect(
                files.map(\.name) == [
                    "progress-photos.json", "2024-01-02_side_\(firstID).png", "2024-03-04_back_\(secondID).jpg",
                ]
            )
            #expect(files[1].content == Self.png)
            let listed = try JSONSerialization.jsonObject(with: Data(files[0].content)) as? [[String: Any]]
            #expect(listed?.map { $0["file"] as? String } == files.dropFirst().map(\.name))
            // The CLI writes the same files from the same SQL.
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("photos-\(UUID()).tar").path
            defer { try? FileManager.default.removeItem(atPath: output) }
            let cli = try await runCLIOffThePool([
                "photos", "archive", "--user", email, "--output", output, "--database-url", try TestDatabase.url(),
            ])
            #expect(cli.status == 0, "\(cli.stderr)")
            #expect(cli.stderr.contains("archived 2 photos"), "\(cli.stderr)")
            let written = try Self.untar(Array(try Data(contentsOf: URL(fileURLWithPath: output))))
            #expect(written.map(\.name) == files.map(\.name))
            #expect(written.dropFirst().map(\.content) == files.dropFirst().map(\.content))

            #expect(try await client.send(.delete, "/progress-photos/\(secondID)", token: token).status == .noContent)
            #expect(try await client.fetch("/progress-photos/\(secondID)/image", token: token).status == .notFound)
            #expect(try await client.send(.get, "/progress-photos/\(firstID)", token: token).status == .ok)
        }
    }

    /// The files of a tar archive, checking each header's checksum as `tar` does.
    static func untar(_ bytes: [UInt8]) throws -> [(name: String, content: [UInt8])] {
        var files: [(String, [UInt8])] = []
        var offset = 0
        while offset + 512 <= bytes.count, bytes[offset..<offset + 512].contains(where: { $0 != 0 }) {
            let header = Array(bytes[offset..<offset + 512])
            func field(_ start: Int, _ length: Int) -> String {
                String(decoding: header[start..<start + length].prefix { $0 != 0 }, as: UTF8.self)
            }
            let size = try #require(Int(field(124, 12), radix: 8))
            let sum = header.enumerated().reduce(0) { $0 + ((148..<156).contains($1.offset) ? 32 : Int($1.element)) }
            #expect(Int(field(148, 6), radix: 8) == sum)
            files.append((field(0, 100), Array(bytes[offset + 512..<offset + 512 + size])))
            offset += 512 + (size + 511) / 512 * 512
        }
        #expect(bytes.count - offset == 1024, "two zero blocks end it")
        return files
    }
}

/// An answer's raw bytes, for the routes whose answers are not JSON.
struct BinaryAnswer {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let bytes: [UInt8]
}

extension TestClientProtocol {
    /// Sends bytes as the body with their own Content-Type (an image upload).
    func upload(
        _ path: String,
        _ bytes: [UInt8],
        contentType: String,
        token: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> APIAnswer {
        let uri = apiBasePath + path
        return APIAnswer(
            try await execute(
                uri: uri,
                method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: contentType],
                body: ByteBuffer(bytes: bytes)
            ),
            method: .post,
            uri: uri,
            sourceLocation: sourceLocation
        )
    }

    /// GETs an answer that is bytes (an image, an archive), checked against the contract.
    func fetch(
        _ path: String,
        token: String,
        headers extra: HTTPFields = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> BinaryAnswer {
        var headers = extra
        headers[.authorization] = "Bearer \(token)"
        let uri = apiBasePath + path
        let response = try await execute(uri: uri, method: .get, headers: headers, body: nil)
        Conformance.check(
            method: .get,
            uri: uri,
            status: Int(response.status.code),
            headers: response.headers,
            body: Data(buffer: response.body),
            sourceLocation: sourceLocation
        )
        return BinaryAnswer(
            status: response.status,
            headers: response.headers,
            bytes: Array(response.body.readableBytesView)
        )
    }
}
