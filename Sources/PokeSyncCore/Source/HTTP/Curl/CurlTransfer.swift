import CCurl
import Foundation

/// What a transfer's body goes to. Both calls run on the ``CurlDriver``'s thread, inside
/// libcurl's callbacks: an error returned ends the transfer there and then (libcurl reads
/// nothing more), and becomes ``CurlOutcome/stopReason``.
protocol CurlSink: AnyObject {
    /// The final response's status and header fields (names lower-cased), once, before its body.
    func head(status: Int, headers: [String: String]) -> (any Error)?
    /// The next piece of the body, decoded when the transfer asked libcurl to decode.
    func body(_ piece: UnsafeRawBufferPointer) -> (any Error)?
}

/// How a transfer ended: libcurl's result and what it knows of the exchange.
struct CurlOutcome {
    /// `CURLE_OK` for a whole response (of any status).
    var code: CURLcode
    /// The final response's status, or 0 when none came.
    var status: Int
    /// The final response's header fields, names lower-cased (repeated fields joined by ", ").
    var headers: [String: String]
    /// libcurl's own words for a failure (its error buffer, else `curl_easy_strerror`).
    var message: String
    /// The status a proxy answered to `CONNECT`, or 0.
    var connectStatus: Int
    /// The error a sink returned to end the transfer, if one did.
    var stopReason: (any Error)?
}

/// One GET on one libcurl easy handle. Made on the caller's thread; from
/// ``CurlDriver/perform(_:)`` on, touched by the driver's thread only.
///
/// `@unchecked Sendable`: handed over once, through the driver's lock, and never touched
/// by the caller after that (the continuation is resumed from the driver's thread).
final class CurlTransfer: @unchecked Sendable {
    /// What to send and how long to wait.
    struct Request {
        var url: URL
        /// Extra header fields (`If-None-Match`, `Accept` ...).
        var headers: [String: String]
        var userAgent: String
        /// Seconds of silence (no byte moving, or no connection made) before the transfer fails.
        var timeout: Int
        /// Milliseconds the whole transfer may take, or nil for no limit.
        var deadlineMilliseconds: Int?
        /// Ask for gzip (and what else libcurl decodes) and hand the sink decoded bytes.
        var decodeContent: Bool
        /// The proxy to go through, or nil to go direct (``ProxyEnvironment`` decides).
        var proxy: ProxyEnvironment.Proxy?
    }

    let handle: UnsafeMutableRawPointer
    let request: Request
    private let sink: any CurlSink
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    // Driver thread only, from here on.
    var continuation: CheckedContinuation<CurlOutcome, any Error>?
    var started = false
    var cancelRequested = false
    private var status = 0
    private var headers: [String: String] = [:]
    private var headComplete = false
    private var stopReason: (any Error)?
    /// When a byte (of a head or a body) last arrived, or the transfer started.
    private var lastActivity = ContinuousClock.now

    /// The stop reason of a transfer silent for its whole `timeout`.
    struct SilenceError: Error {}

    init(_ request: Request, sink: any CurlSink) {
        self.request = request
        self.sink = sink
        handle = curl_easy_init()
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        configure()
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private func configure() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        func long(_ option: CURLoption, _ value: Int) { _ = pokesync_easy_setopt_long(handle, option, value) }
        func string(_ option: CURLoption, _ value: String) { _ = pokesync_easy_setopt_string(handle, option, value) }
        string(CURLOPT_URL, request.url.absoluteString)
        // Only HTTP: a URL (or anything libcurl could be led to) of another scheme is refused.
        string(CURLOPT_PROTOCOLS_STR, "http,https")
        long(CURLOPT_NOSIGNAL, 1)
        string(CURLOPT_USERAGENT, request.userAgent)
        if request.decodeContent { string(CURLOPT_ACCEPT_ENCODING, "") }  // every encoding libcurl decodes
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        if let headerList { _ = pokesync_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList) }
        // The proxy is chosen by ProxyEnvironment, as libcurl would from the same variables,
        // and set here explicitly so that a failure names the proxy really used.
        string(CURLOPT_PROXY, request.proxy?.url ?? "")
        string(CURLOPT_NOPROXY, "")
        long(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        long(CURLOPT_CONNECTTIMEOUT, max(1, request.timeout))
        // `timeout` seconds without a byte: a silent server times out (checked by the progress
        // callback, which libcurl calls about once a second even when nothing moves; libcurl's
        // own low-speed check averages, and takes a byte a second for silence).
        long(CURLOPT_NOPROGRESS, 0)
        _ = pokesync_easy_setopt_xferinfo_function(handle, curlProgressCallback)
        _ = pokesync_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        if let deadline = request.deadlineMilliseconds { long(CURLOPT_TIMEOUT_MS, max(1, deadline)) }
        // Over HTTP/2 (https only: no h2c), wait for the connection already being made and share it.
        if request.url.scheme?.lowercased() == "https" { long(CURLOPT_PIPEWAIT, 1) }
        _ = pokesync_easy_setopt_sockopt(handle, curlSocketOptions)
        _ = pokesync_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = pokesync_easy_setopt_write(handle, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        _ = pokesync_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = pokesync_easy_setopt_write(handle, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        _ = pokesync_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
    }

    /// Resumes the awaiting task, once.
    func finish(_ result: Result<CurlOutcome, any Error>) {
        let waiting = continuation
        continuation = nil
        waiting?.resume(with: result)
    }

    /// How the transfer ended, read once libcurl is done with it.
    func outcome(code: CURLcode) -> CurlOutcome {
        var connect = 0
        _ = pokesync_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connect)
        var message = String(cString: errorBuffer)
        if message.isEmpty, code != CURLE_OK { message = String(cString: curl_easy_strerror(code)) }
        return CurlOutcome(code: code, status: headComplete ? status : 0, headers: headers, message: message,
                           connectStatus: connect, stopReason: stopReason)
    }

    /// One header line (status line, field, or the blank line ending a head).
    fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        guard !headComplete else { return true }  // trailers: not used
        // "\r\n" is one Character in Swift: trimmed as newlines, not by suffix.
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
        if text.hasPrefix("HTTP/") {
            // A new head: an interim 1xx before the final one starts over.
            let parts = text.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = [:]
        } else if text.isEmpty {
            guard status >= 200 else { return true }  // 100 Continue and the like: another head follows
            headComplete = true
            if let error = sink.head(status: status, headers: headers) {
                stopReason = error
                return false
            }
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return true
    }

    /// One piece of the body; false ends the transfer in this call.
    fileprivate func receiveBody(_ piece: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        guard stopReason == nil else { return false }
        if let error = sink.body(piece) {
            stopReason = error
            return false
        }
        return true
    }

    /// Whether the transfer may go on: false once it has been silent for `timeout` seconds.
    fileprivate func checkSilence() -> Bool {
        guard ContinuousClock.now - lastActivity >= .seconds(max(1, request.timeout)) else { return true }
        stopReason = stopReason ?? SilenceError()
        return false
    }
}

/// The receive buffer of every connection, set before it connects (a fixed size turns the
/// kernel's autotuning off). It bounds what a server can have pushed past a body's cap
/// into this machine when the transfer stops there (autotuned, 4 MB and more on loopback),
/// and still allows 5 MB/s a connection at 50 ms of round trip.
let curlReceiveBufferBytes: Int32 = 256 << 10

/// `CURLOPT_SOCKOPTFUNCTION`: sizes the receive buffer (``curlReceiveBufferBytes``).
private let curlSocketOptions: curl_sockopt_callback = { _, socket, _ in
    var size = curlReceiveBufferBytes
    _ = setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    return CURL_SOCKOPT_OK
}

/// `CURLOPT_XFERINFOFUNCTION`: non-zero aborts the transfer in this call.
private let curlProgressCallback: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().checkSilence() ? 0 : 1
}

/// `CURLOPT_HEADERFUNCTION`: returning less than it was given aborts the transfer.
private let curlHeaderCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// `CURLOPT_WRITEFUNCTION`: returning less than it was given aborts the transfer at once.
private let curlWriteCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}
