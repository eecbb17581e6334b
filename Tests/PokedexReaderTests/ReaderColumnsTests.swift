@testable import PokedexReader
import Testing

/// The reader reads what the declaration declares: every declared column is selected by
/// some reader query (``ReadQuery/all``) or marked `read: false`, and every column a query
/// selects from a declared table is declared.
@Suite struct ReaderColumnsTests {
    static var read: Set<String> { Set(ReadQuery.all.flatMap { $0.reads.map { "\($0.table).\($0.column)" } }) }

    @Test func everyDeclaredColumnIsReadOrMarkedNotRead() {
        let read = Self.read
        let unread = DeviceSchema.tables.flatMap { table in
            table.declaredColumns.filter { $0.isRead && !read.contains("\(table.name).\($0.name)") }.map { "\(table.name).\($0.name)" }
        }
        #expect(unread.isEmpty, "declared, read by no reader query, and not marked read: false: \(unread.joined(separator: ", "))")
    }

    @Test func aColumnMarkedNotReadIsNotRead() {
        let read = Self.read
        let marked = DeviceSchema.tables.flatMap { table in
            table.declaredColumns.filter { !$0.isRead && read.contains("\(table.name).\($0.name)") }.map { "\(table.name).\($0.name)" }
        }
        #expect(marked.isEmpty, "marked read: false but read: \(marked.joined(separator: ", "))")
    }

    @Test func everyColumnAQuerySelectsIsDeclared() {
        let declared = Set((DeviceSchema.tables + [SearchIndex.searchTable]).flatMap { table in table.columns.map { "\(table.name).\($0)" } })
        let undeclared = Self.read.subtracting(declared)
        #expect(undeclared.isEmpty, "read but not declared: \(undeclared.sorted().joined(separator: ", "))")
    }
}
