import Foundation
import PokeSQLite

extension DeclaredRow {
    /// A declared table's rows selected by one or more of its columns (or reached through
    /// a linking table), in a given order: made once per table and use, so that its
    /// statements are the same text on every call (the connection reuses them). A class:
    /// every row read holds its query, and a reference is one count to keep.
    final class Query: Sendable {
        let table: DeviceSchema.Table
        /// `SELECT <declared columns> FROM <table>` (and the link's column, joined).
        private let selection: String
        /// The column rows are selected by, as SQL.
        private let key: String
        /// ` ORDER BY ...`, or "".
        private let order: String
        /// The statements, made once: the same text on every call.
        private let oneSQL: String, everySQL: String, pageSQL: String, allSQL: String
        let positions: [String: Int32]
        /// Property name to column position for the usual spellings of each column
        /// (`speciesId` and `speciesID` for `species_id`): a detail page reads hundreds of
        /// rows, and spelling each property as a column every time cost more than the queries.
        let propertyPositions: [String: Int32]
        /// Where each model read through this query takes each property from, learnt on its
        /// first read (``ReadPlans``).
        let plans = ReadPlans()
        /// Whether each row carries the linking table's column after the declared ones.
        private let linked: Bool

        /// Rows of `table` selected by `column` (its first key column when nil), in the
        /// order of `orderedBy` (`"slot"`, `"entry_index DESC"`).
        convenience init(_ table: DeviceSchema.Table, by column: String? = nil, orderedBy: [String] = []) {
            self.init(table, from: "FROM \(table.quotedName)", select: "", keyTable: table,
                      by: [column ?? table.columns[0]], orderedBy: orderedBy)
        }

        /// Rows of `table` selected by several columns at once (``rows(matching:in:)``):
        /// one language's flavor texts of a species.
        convenience init(_ table: DeviceSchema.Table, by columns: [String], orderedBy: [String] = []) {
            self.init(table, from: "FROM \(table.quotedName)", select: "", keyTable: table, by: columns, orderedBy: orderedBy)
        }

        /// Rows of `table` reached from the rows of `link` whose `column` is the key, one
        /// per `link` row in its order, where `link`'s `linking.0` equals `table`'s
        /// `linking.1`: a pokemon's moves from `pokemon_move` to `move`. A link row that
        /// names no row of `table` gives a row of NULLs; every row carries the link's
        /// column (``linkValue``).
        convenience init(_ table: DeviceSchema.Table, through link: DeviceSchema.Table, linking: (String, String),
                         by column: String, orderedBy: [String]) {
            Self.check([linking.1], in: table)
            Self.check([linking.0], in: link)
            self.init(table, from: "FROM \(link.quotedName) l LEFT JOIN \(table.quotedName) t ON t.\(DeviceSchema.quoted(linking.1)) = l.\(DeviceSchema.quoted(linking.0))",
                      select: "l.\(DeviceSchema.quoted(linking.0))", keyTable: link, by: [column], orderedBy: orderedBy)
        }

        private init(_ table: DeviceSchema.Table, from: String, select linkColumn: String, keyTable: DeviceSchema.Table,
                     by columns: [String], orderedBy: [String]) {
            self.table = table
            linked = !linkColumn.isEmpty
            let prefix = linked ? "t." : "", keyPrefix = linked ? "l." : ""
            positions = Dictionary(uniqueKeysWithValues: table.columns.enumerated().map { ($1, Int32($0)) })
            propertyPositions = Self.propertySpellings(of: table.columns)
            Self.check(columns + orderedBy.map { String($0.split(separator: " ")[0]) }, in: keyTable)
            let selected = table.columns.map { prefix + DeviceSchema.quoted($0) } + (linked ? [linkColumn] : [])
            selection = "SELECT \(selected.joined(separator: ", ")) \(from)"
            key = keyPrefix + DeviceSchema.quoted(columns[0])
            let match = columns.map { "\(keyPrefix)\(DeviceSchema.quoted($0)) = ?" }.joined(separator: " AND ")
            order = orderedBy.isEmpty ? "" : " ORDER BY " + orderedBy.map { term in
                let words = term.split(separator: " ").map(String.init)
                precondition(words.count <= 2 && (words.count == 1 || words[1] == "DESC"), "\(term): a column, or a column and DESC")
                return ([keyPrefix + DeviceSchema.quoted(words[0])] + words.dropFirst()).joined(separator: " ")
            }.joined(separator: ", ")
            oneSQL = "\(selection) WHERE \(match)\(order) LIMIT 1"
            everySQL = "\(selection) WHERE \(match)\(order)"
            pageSQL = "\(everySQL) LIMIT ? OFFSET ?"
            allSQL = selection + order
        }

        /// Each column's property spellings, lower camel case with each later word
        /// capitalized or in capitals, kept when ``DeviceSchema/columnName(ofProperty:)``
        /// gives the column back.
        private static func propertySpellings(of columns: [String]) -> [String: Int32] {
            var spellings: [String: Int32] = [:]
            for (position, column) in columns.enumerated() {
                let words = column.split(separator: "_").map(String.init)
                var candidates = [words.first ?? ""]
                for word in words.dropFirst() {
                    candidates = candidates.flatMap { [$0 + word.prefix(1).uppercased() + word.dropFirst(), $0 + word.uppercased()] }
                }
                for candidate in Set(candidates) where DeviceSchema.columnName(ofProperty: candidate) == column {
                    spellings[candidate] = Int32(position)
                }
            }
            return spellings
        }

        private static func check(_ names: [String], in table: DeviceSchema.Table) {
            for name in names where !table.columns.contains(name) {
                preconditionFailure("\(table.name) declares no column \(name) (\(table.columns.joined(separator: ", ")))")
            }
        }

        /// The first row whose key column is `key`, or nil.
        func row(_ key: SQLValue, in database: Database) throws -> DeclaredRow? {
            try database.row(oneSQL, [key], make)
        }

        /// Every row whose key column is `key`, in order; `page` gives a page of them.
        func rows(_ key: SQLValue, in database: Database, page: (limit: Int, offset: Int)? = nil) throws -> [DeclaredRow] {
            guard let page else { return try database.rows(everySQL, [key], make) }
            return try database.rows(pageSQL, [key, .integer(Int64(max(page.limit, 0))), .integer(Int64(max(page.offset, 0)))], make)
        }

        /// Every row whose key columns are `keys`, in order.
        func rows(matching keys: [SQLValue], in database: Database) throws -> [DeclaredRow] {
            try database.rows(everySQL, keys, make)
        }

        /// Every row whose (first) key column is one of `keys`, in order: one statement for a page.
        func rows(in keys: [SQLValue], in database: Database) throws -> [DeclaredRow] {
            guard !keys.isEmpty else { return [] }
            let marks = keys.map { _ in "?" }.joined(separator: ", ")
            return try database.rows("\(selection) WHERE \(key) IN (\(marks))\(order)", keys, make)
        }

        /// Every row of the table, in order.
        func all(in database: Database) throws -> [DeclaredRow] {
            try database.rows(allSQL, [], make)
        }

        /// A row of NULLs: what a model is read from when the table has no row for a
        /// name other tables give (a move a small sample leaves out keeps its slug).
        var absent: DeclaredRow { DeclaredRow(query: self, values: table.columns.map { _ in .null }) }

        private func make(_ row: Row) -> DeclaredRow {
            DeclaredRow(query: self, values: (0..<Int32(table.columns.count + (linked ? 1 : 0))).map { column in
                switch row.storageClass(column) {
                case .integer: .integer(Int64(row.int(column)))
                case .text: .text(row.text(column))
                default: .null
                }
            })
        }
    }
}
