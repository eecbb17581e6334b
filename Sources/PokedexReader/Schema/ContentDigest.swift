import PokeArchive
import PokeSQLite

/// `content_digest`: SHA-256 over a device database's logical content, as DESIGN
/// defines it so that any language can compute it.
///
/// For each table of ``DeviceSchema/tables`` in order, the rows of its listed columns,
/// ordered by those columns (BINARY collation, NULLs first), each written as one line
/// `["table",v1,v2,...]\n`: integers in decimal, text as a JSON string (only `"`, `\`
/// and characters below U+0020 escaped, the latter as `\u00XX` in lowercase hex),
/// `null`. The `meta` row `content_digest` is left out: it holds the result.
///
/// The exporter, the delta builder and the updater all call this one function.
public enum ContentDigest {
    /// Computes the digest of the database open as `database`.
    /// - Throws: `DatabaseError` when a table is missing or unreadable;
    ///   ``ContentDigestError`` for a value that is a real number or a blob.
    public static func compute(_ database: Database) throws -> SHA256Digest {
        var hasher = SHA256()
        // Rows are encoded into one buffer that goes to the hasher when it fills: the
        // digest reads every row of the database, so this loop is what installs and exports
        // spend most of their checking time in.
        var output = DigestBuffer()
        for table in DeviceSchema.tables {
            let columns = table.columnList
            let filter = table.name == "meta" ? " WHERE key <> '\(DeviceSchema.MetaKey.contentDigest)'" : ""
            let sql = "SELECT \(columns) FROM \(table.quotedName)\(filter) ORDER BY \(columns)"
            let statement = try database.statement(sql)
            try statement.bind([])
            defer { statement.reset() }
            let prefix = Array("[\"\(table.name)\"".utf8)
            while try statement.step() {
                let row = Row(statement: statement)
                output.append(prefix)
                for column in 0..<Int32(table.columns.count) {
                    output.append(UInt8(ascii: ","))
                    switch row.storageClass(column) {
                    case .null: output.append(Self.null)
                    case .integer: output.appendDecimal(row.int(column))
                    case .text: row.withUTF8(column) { output.appendJSONString($0) }
                    case .real, .blob:
                        throw ContentDigestError(table: table.name, column: table.columns[Int(column)])
                    }
                }
                output.append(Self.rowEnd)
                if output.count >= DigestBuffer.flushSize { output.flush(into: &hasher) }
            }
        }
        output.flush(into: &hasher)
        return hasher.finalize()
    }

    private static let null = Array("null".utf8)
    private static let rowEnd: [UInt8] = [UInt8(ascii: "]"), UInt8(ascii: "\n")]
}

/// The bytes of encoded rows waiting for the hasher.
private struct DigestBuffer {
    static let flushSize = 64 * 1024
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private(set) var bytes: [UInt8] = []
    var count: Int { bytes.count }

    init() { bytes.reserveCapacity(Self.flushSize + 4096) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    mutating func appendDecimal(_ value: Int) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// `text` as a JSON string in the digest's encoding: only `"`, `\` and bytes below
    /// 0x20 escaped, the latter as `\u00XX` in lowercase hex; runs of plain bytes copied whole.
    mutating func appendJSONString(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
            if byte < 0x20 {
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]])
            } else {
                bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            }
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func flush(into hasher: inout SHA256) {
        bytes.withUnsafeBytes { hasher.update($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// A value `content_digest` cannot encode: the schema holds integers, text and nulls only.
public struct ContentDigestError: Error, CustomStringConvertible, Sendable {
    public var table: String
    public var column: String
    public var description: String { "\(table).\(column) holds a real number or a blob, which content_digest does not encode" }
}
