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
        var line: [UInt8] = []
        line.reserveCapacity(4096)
        for table in DeviceSchema.tables {
            let columns = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
            let filter = table.name == "meta" ? " WHERE key <> '\(DeviceSchema.MetaKey.contentDigest)'" : ""
            let sql = "SELECT \(columns) FROM \"\(table.name)\"\(filter) ORDER BY \(columns)"
            let statement = try database.statement(sql)
            try statement.bind([])
            defer { statement.reset() }
            let prefix = Array("[\"\(table.name)\"".utf8)
            while try statement.step() {
                let row = Row(statement: statement)
                line.removeAll(keepingCapacity: true)
                line += prefix
                for column in 0..<Int32(table.columns.count) {
                    line.append(UInt8(ascii: ","))
                    switch row.storageClass(column) {
                    case .null: line += Array("null".utf8)
                    case .integer: line += Array(String(row.int(column)).utf8)
                    case .text: row.withUTF8(column) { appendJSONString($0, to: &line) }
                    case .real, .blob:
                        throw ContentDigestError(table: table.name, column: table.columns[Int(column)])
                    }
                }
                line += [UInt8(ascii: "]"), UInt8(ascii: "\n")]
                line.withUnsafeBytes { hasher.update($0) }
            }
        }
        return hasher.finalize()
    }

    /// Appends `text` as a JSON string in the digest's encoding.
    static func appendJSONString(_ text: UnsafeBufferPointer<UInt8>, to line: inout [UInt8]) {
        let hexDigits = Array("0123456789abcdef".utf8)
        line.append(UInt8(ascii: "\""))
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                line += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                line += Array("\\u00".utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default:
                line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }
}

/// A value `content_digest` cannot encode: the schema holds integers, text and nulls only.
public struct ContentDigestError: Error, CustomStringConvertible, Sendable {
    public var table: String
    public var column: String
    public var description: String { "\(table).\(column) holds a real number or a blob, which content_digest does not encode" }
}
