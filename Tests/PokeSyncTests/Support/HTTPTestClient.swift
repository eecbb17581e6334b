import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small URLSession client for tests: no cache, optional refusal of redirects.
struct HTTPTestClient: Sendable {
    private let session: URLSession

    /// - Parameter followRedirects: false returns a 301 as the response instead of following it.
    init(followRedirects: Bool = true) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration,
                             delegate: followRedirects ? nil : RedirectRefuser(),
                             delegateQueue: nil)
    }

    /// GET `url` with extra request headers.
    /// - Throws: `URLError` when the transfer fails (a reset, a body shorter than its Content-Length).
    func get(_ url: URL, headers: [String: String] = [:]) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return (data, http)
    }

    /// GET `url` and parse the body as JSON.
    /// - Throws: `URLError` when the transfer fails, a Foundation error when the body is not JSON.
    func json(_ url: URL) async throws -> Any {
        let (data, _) = try await get(url)
        return try JSONSerialization.jsonObject(with: data)
    }
}

/// Refuses every redirect, so the 301 itself reaches the caller.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask,
                    willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest,
                    completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// Structural checks of a PNG file: signature, chunk lengths and CRCs.
enum PNGInspector {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct Chunk: Equatable {
        let type: String
        let data: [UInt8]
    }

    /// The chunks of a PNG, or nil when the signature, a length or a CRC is wrong.
    static func chunks(of data: Data) -> [Chunk]? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: signature) else { return nil }
        var chunks: [Chunk] = []
        var position = signature.count
        while position < bytes.count {
            guard position + 12 <= bytes.count else { return nil }
            let length = Int(bigEndian(bytes, at: position))
            guard position + 12 + length <= bytes.count else { return nil }
            let typeAndData = Array(bytes[(position + 4)..<(position + 8 + length)])
            guard crc32(typeAndData) == bigEndian(bytes, at: position + 8 + length) else { return nil }
            let type = String(decoding: typeAndData[0..<4], as: UTF8.self)
            chunks.append(Chunk(type: type, data: Array(typeAndData[4...])))
            position += 12 + length
        }
        return chunks
    }

    /// Width and height from an IHDR chunk's data.
    static func size(ofHeader data: [UInt8]) -> (width: UInt32, height: UInt32) {
        (bigEndian(data, at: 0), bigEndian(data, at: 4))
    }

    static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// CRC-32 (ISO-HDLC), as PNG chunks use it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
