import Foundation
import PokeArchive
import PokeSQLite

/// `content_digest`: SHA-256 over a device database's logical content, as <doc:PokedexReader/DeviceDatabase#The-content-digest>
/// defines it so that any language can compute it.
///
/// For each table of ``DeviceSchema/tables`` in order, the rows of its listed columns,
/// ordered by those columns (BINARY collation, NULLs first), each written as one line
/// `["table",v1,v2,...]\n`: integers in decimal, text as a JSON string (only `"`, `\`
/// and characters below U+0020 escaped, the latter as `\u00XX` in lowercase hex),
/// `null`. The `meta` row `content_digest` is left out: it holds the result.
///
/// The exporter, the delta builder and the updater all call this one function.
package enum ContentDigest {
    /// Computes the digest of the database open as `database`, over the columns `tables`
    /// declare (the schema's, but for a test that adds a column).
    /// - Throws: `DatabaseError` when a table is missing or unreadable;
    ///   ``ContentDigestError`` for a value that is a real number or a blob.
    package static func compute(_ database: Database, tables: [DeviceSchema.Table] = DeviceSchema.tables) throws -> SHA256Digest {
        // Rows are encoded into one buffer that goes to the hasher when it fills: the
        // digest reads every row of the database (about a million for the full data), so
        // this loop is what installs and exports spend most of their checking time in.
        // It is written for an unoptimised build too (an app's debug build installs with
        // it): `while` loops, not ranges; pointer stores and `memcpy`, not Array appends.
        let output = DigestBuffer()
        for table in tables {
            let columns = table.columnList
            let filter = table.name == DeviceSchema.Table.meta.name ? " WHERE key <> '\(DeviceSchema.MetaKey.contentDigest)'" : ""
            let sql = "SELECT \(columns) FROM \(table.quotedName)\(filter) ORDER BY \(columns)"
            let statement = try database.statement(sql)
            try statement.bind([])
            defer { statement.reset() }
            let prefix = Array("[\"\(table.name)\"".utf8)
            let columnCount = Int32(table.columns.count)
            try prefix.withUnsafeBufferPointer { prefix in
                while try statement.step() {
                    let row = Row(statement: statement)
                    output.append(prefix)
                    var column: Int32 = 0
                    while column < columnCount {
                        output.append(UInt8(ascii: ","))
                        switch row.storageClass(column) {
                        case .null: output.appendNull()
                        case .integer: output.appendDecimal(row.int(column))
                        case .text: row.withUTF8(column) { output.appendJSONString($0) }
                        case .real, .blob:
                            throw ContentDigestError(table: table.name, column: table.columns[Int(column)])
                        }
                        column += 1
                    }
                    output.appendRowEnd()
                }
            }
        }
        return output.finalize()
    }
}

/// A value `content_digest` cannot encode: the schema holds integers, text and nulls only.
package struct ContentDigestError: Error, CustomStringConvertible, Sendable {
    package var table: String
    package var column: String
    package var description: String { "\(table).\(column) holds a real number or a blob, which content_digest does not encode" }
}
