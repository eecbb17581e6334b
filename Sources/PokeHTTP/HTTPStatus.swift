/// A status `serve` answers with, named, with its reason phrase (RFC 9110, 15): only
/// these exist, so every status line has its own phrase.
package struct HTTPStatus: Equatable, Sendable, CustomStringConvertible {
    let code: Int
    /// A literal: a reply carries it with no reference to count.
    let reason: StaticString

    private init(_ code: Int, _ reason: StaticString) {
        self.code = code
        self.reason = reason
    }

    /// The code decides: there is one status a code.
    package static func == (left: HTTPStatus, right: HTTPStatus) -> Bool { left.code == right.code }

    package var description: String { "\(code) \(reason)" }

    // One line a status: a table of names, alike by nature.
    package static let ok = HTTPStatus(200, "OK")
    package static let noContent = HTTPStatus(204, "No Content")
    package static let movedPermanently = HTTPStatus(301, "Moved Permanently")
    package static let notModified = HTTPStatus(304, "Not Modified")
    package static let badRequest = HTTPStatus(400, "Bad Request")
    package static let notFound = HTTPStatus(404, "Not Found")
    package static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    static let uriTooLong = HTTPStatus(414, "URI Too Long")
    static let headerFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    package static let internalServerError = HTTPStatus(500, "Internal Server Error")
    package static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")

    /// Whether a reply with this status has no body and no `Content-Length` (204, 304).
    var hasNoContent: Bool { self == .noContent || self == .notModified }
}
