import PokeSQLite

/// One of the reader's queries: the declared table it reads, the columns of that table it
/// selects (those its model's `init(row:)` reads, no more), and its SQL, made from them.
/// Every reader query is one (``all`` lists them), so a test can name a declared column
/// no query reads.
///
/// Column names are double-quoted; each connection turns off SQLite's reading of an
/// unknown quoted name as a string (``Database/readerConnection(path:mode:)``), so a
/// column missing from the file is an error, never its own name as a value.
final class ReadQuery: Sendable {
    /// The table a failure names: its first column, always selected, is the row's id.
    let table: DeviceSchema.Table
    /// The declared columns the query reads, by table: `table`'s, then those of ``Extra``.
    let reads: [(table: String, column: String)]
    /// The statement, with `(?*)` standing for a list of values (``withLists(_:counts:)``).
    let sql: String
    /// `sql` split at each `(?*)`, once.
    private let parts: [String]
    /// `sql` with each `(?*)` a JSON array's values (``withLists(_:counts:)``).
    private let listSQL: String
    /// How many plain `?` marks each of `parts` holds, to find each list's arguments.
    private let plainMarks: [Int]

    /// A value selected besides `table`'s columns, read by its `AS` name.
    enum Extra: Sendable {
        /// A declared column of another table of the join: `alias.column AS name`.
        case column(DeviceSchema.Table, alias: String, String, as: String)
        /// Any expression (`COALESCE(...) AS thumbnail`), reading no declared column directly.
        case expression(String)
    }

    /// `SELECT <columns> FROM <table> <clauses>`: `clauses` is `WHERE ...`, `ORDER BY ...`.
    convenience init(_ table: DeviceSchema.Table, _ columns: [String], also: [Extra] = [], _ clauses: String = "") {
        self.init(table, alias: nil, columns, also: also, "FROM \(table.quotedName) \(clauses)")
    }

    /// `SELECT <alias>.<columns>, <also> <from>`: the columns of `table`, named `alias` in
    /// `from`, and other values, for a join.
    convenience init(_ table: DeviceSchema.Table, as alias: String, _ columns: [String], also: [Extra] = [], _ from: String) {
        self.init(table, alias: alias, columns, also: also, from)
    }

    private init(_ table: DeviceSchema.Table, alias: String?, _ columns: [String], also: [Extra], _ from: String) {
        // The id first, so that a failure can name the row.
        let columns = columns.contains(table.columns[0]) ? columns : [table.columns[0]] + columns
        let prefix = alias.map { "\($0)." } ?? ""
        var selected = columns.map { prefix + DeviceSchema.quoted($0) }
        var reads = columns.map { (table: table.name, column: $0) }
        for extra in also {
            switch extra {
            case .column(let other, let alias, let column, let name):
                selected.append("\(alias).\(DeviceSchema.quoted(column)) AS \(name)")
                reads.append((other.name, column))
            case .expression(let expression):
                selected.append(expression)
            }
        }
        self.table = table
        self.reads = reads
        sql = "SELECT \(selected.joined(separator: ", ")) \(from)"
        parts = sql.components(separatedBy: "(?*)")
        plainMarks = parts.map { part in part.utf8.filter { $0 == UInt8(ascii: "?") }.count }
        listSQL = parts.joined(separator: "(SELECT value FROM json_each(?))")
    }

    /// `sql` with each `(?*)` made one mark for a JSON array of the list's values
    /// (`IN (SELECT value FROM json_each(?))`), and `arguments`, whose lists have `counts`
    /// values each, with each list made that array.
    ///
    /// One statement whatever the lists' lengths: a connection keeps each statement it
    /// prepares, one per SQL text, for its life, and with a mark a value a detail page's
    /// move names alone came in over a hundred lengths, each a statement kept (a list of
    /// 1,351 ids was about 170 kB of prepared statement).
    func withLists(_ arguments: [SQLValue], counts: [Int]) -> (sql: String, arguments: [SQLValue]) {
        precondition(parts.count == counts.count + 1, "\(counts.count) lists for: \(sql)")
        precondition(arguments.count == plainMarks.reduce(0, +) + counts.reduce(0, +),
                     "\(arguments.count) arguments for lists of \(counts) in: \(sql)")
        var bound: [SQLValue] = []
        var next = 0
        for (index, count) in counts.enumerated() {
            bound += arguments[next ..< next + plainMarks[index]]
            next += plainMarks[index]
            bound.append(.text(Self.jsonArray(arguments[next ..< next + count])))
            next += count
        }
        bound += arguments[next...]
        return (listSQL, bound)
    }

    /// `values` as a JSON array: integers as numbers, texts as strings.
    static func jsonArray(_ values: ArraySlice<SQLValue>) -> String {
        var json = "["
        for (index, value) in values.enumerated() {
            if index > 0 { json += "," }
            switch value {
            case .integer(let number): json += String(number)
            case .text(let text): appendJSONString(text, to: &json)
            case .null: json += "null"
            case .real, .blob: preconditionFailure("a list of the reader's queries holds integers and texts")
            }
        }
        return json + "]"
    }

    private static func appendJSONString(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}

extension Database {
    /// A reader connection: SQLite's double-quoted string literals off
    /// (``Database/refuseDoubleQuotedStrings()``), so a missing column is an error.
    package static func readerConnection(path: String, mode: Mode) throws(DatabaseError) -> Database {
        let database = try Database(path: path, mode: mode)
        try database.refuseDoubleQuotedStrings()
        return database
    }

    /// Every row of `query`, each made by `make` (a model's `init(row:...)`).
    /// `lists` gives the length of each `(?*)` list of `query`, in order: their values are
    /// in `arguments`, one by one, and are bound as one JSON array each (``ReadQuery/withLists(_:counts:)``).
    func records<T>(_ query: ReadQuery, _ arguments: [SQLValue] = [], lists: [Int]? = nil,
                    _ make: (ReadRow) throws -> T) throws -> [T] {
        // Stepped here rather than through `Statement.rows`: generic code of this module is
        // specialized for each model, where PokeSQLite's would look up its types' metadata
        // on every call (a detail page makes twenty).
        let (sql, arguments) = lists.map { query.withLists(arguments, counts: $0) } ?? (query.sql, arguments)
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        let names = statement.columnNames
        var result: [T] = []
        while try statement.step() { result.append(try make(ReadRow(Row(statement: statement), of: query, names: names))) }
        return result
    }

    /// The first row of `query`, made by `make`, or nil when there is none.
    func record<T>(_ query: ReadQuery, _ arguments: [SQLValue] = [], _ make: (ReadRow) throws -> T) throws -> T? {
        let statement = try statement(query.sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try make(ReadRow(Row(statement: statement), of: query, names: statement.columnNames))
    }
}
