import Foundation
import Testing

/// A running `pokesync serve` on 127.0.0.1 (a free port), stopped by SIGTERM in `stop()`
/// or killed when dropped.
final class ServeProcess {
    let child: PokesyncCLI.Child
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts serving `mirror` and waits for the line that names the port.
    convenience init(mirror: URL, _ extra: [String] = []) async throws {
        try await self.init(child: PokesyncCLI(mirror: mirror).start(["serve", "--listen", "127.0.0.1:0"] + extra))
    }

    /// Runs `child` (a serve on 127.0.0.1:0, started some other way: under a shell's limits)
    /// and waits for the line that names the port.
    init(child: PokesyncCLI.Child) async throws {
        self.child = child
        try child.process.run()
        let deadline = Date().addingTimeInterval(30)
        while true {
            let output = (try? String(contentsOf: child.stdoutFile, encoding: .utf8)) ?? ""
            if let range = output.range(of: #"listening on 127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                port = Int(output[range].split(separator: ":").last!)!
                return
            }
            guard child.process.isRunning, Date() < deadline else {
                child.process.terminate()
                throw ServeTestError("serve did not start: \(child.result().stderr)")
            }
            try? await Task.sleep(for: .milliseconds(20))  // no throw here: a half-made server would outlive its test
        }
    }

    /// The port of `--metrics-listen`, as the start line names it.
    var metricsPort: Int? {
        let output = (try? String(contentsOf: child.stdoutFile, encoding: .utf8)) ?? ""
        guard let range = output.range(of: #"metrics at http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return nil }
        return Int(output[range].split(separator: ":").last!)
    }

    /// SIGTERM, then waits for the exit (at most `seconds`).
    @discardableResult
    func stop(within seconds: Double = 20) async -> PokesyncCLI.Result {
        if child.process.isRunning { kill(child.process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(seconds)
        while child.process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if child.process.isRunning {
            kill(child.process.processIdentifier, SIGKILL)
        }
        await child.waitUntilExit()
        return child.result()
    }

    deinit {
        if child.process.isRunning {
            kill(child.process.processIdentifier, SIGKILL)
            child.process.waitUntilExit()
        }
    }

    /// One request on a new connection.
    func get(_ path: String, headers: [String] = [], method: String = "GET") throws -> RawResponse {
        try Self.get(port: port, path, headers: headers, method: method)
    }

    static func get(port: Int, _ path: String, headers: [String] = [], method: String = "GET", from source: String? = nil) throws -> RawResponse {
        let connection = try RawConnection(port: port, from: source)
        try connection.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        return try #require(try connection.readResponse(head: method == "HEAD"))
    }

    /// A JSON body of a 200.
    func json(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let response = try get(path)
        #expect(response.status == 200, "\(path): \(response.status)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }
}

struct ServeTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One parsed response.
struct RawResponse {
    var status: Int
    /// Lowercased names.
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// send(2) without SIGPIPE (a server that closed first is an error to return, not a signal).
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    var yes: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    return Darwin.send(descriptor, bytes, count, 0)
    #endif
}

/// A client socket speaking bytes: for what URLSession and curl will not send.
final class RawConnection {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address: 127.0.0.2)
    /// when given, with a receive buffer of `receiveBuffer` bytes when given (set before
    /// connecting, so the window the server sees is that small).
    init(port: Int, timeout: Int = 10, from source: String? = nil, receiveBuffer: Int32? = nil) throws {
        // Close-on-exec from the start: a child another test spawns meanwhile (a serve under
        // `ulimit -n 64`) must not inherit this test's sockets.
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        #endif
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            // No close here: an init that throws once every property is set still runs
            // deinit, which closes it (closing twice would close whatever another thread
            // opened on that number meanwhile).
            guard bound == 0 else { throw ServeTestError("bind \(source): \(errno)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ServeTestError("connect: \(errno)") }
        setTimeout(Double(timeout))
    }

    deinit { close(descriptor) }

    func setTimeout(_ seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: .init((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { systemSend(descriptor, $0.baseAddress! + sent, $0.count - sent) }
            guard count > 0 else { throw ServeTestError("send: \(errno)") }
            sent += count
        }
    }

    /// Reads more; false on end of stream, timeout or error.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[0 ..< count]
        return true
    }

    /// The next response, or nil when the server closed (or said nothing in time) first.
    func readResponse(head: Bool = false) throws -> RawResponse? {
        let end: Int
        while true {
            if let found = buffer.indices.dropLast(3).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                end = found
                break
            }
            guard fill() else { return nil }
        }
        let lines = String(decoding: buffer[0 ..< end], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(end + 4)
        let status = Int(lines[0].split(separator: " ")[1])!
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = head || status == 304 ? 0 : Int(headers["content-length"] ?? "0")!
        while buffer.count < length { guard fill() else { throw ServeTestError("body cut at \(buffer.count) of \(length)") } }
        let body = Array(buffer[0 ..< length])
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closes the connection within `seconds` (reading and dropping what it sends).
    func closes(within seconds: Double) -> Bool {
        setTimeout(seconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
        return false
    }
}

/// Mirrors made for the serve tests: `full` of an api-data sample, no sprites.
enum ServeMirror {
    /// The whole-API sample of 2026-08-08: every endpoint, `meta`, encounters.
    static let whole2026 = TestPaths.fixtures.appendingPathComponent("whole-2026-08-08", isDirectory: true)

    static func make(_ folder: URL, from sample: URL = TestPaths.sample2026, kinds: String = "default") async throws -> URL {
        let mirror = folder.appendingPathComponent("Mirror")
        let result = try await PokesyncCLI(mirror: mirror).run(["full", "--source", sample.path, "--sprites", "none", "--kinds", kinds])
        guard result.status == 0 else { throw ServeTestError("full failed: \(result.stderr)") }
        return mirror
    }
}
