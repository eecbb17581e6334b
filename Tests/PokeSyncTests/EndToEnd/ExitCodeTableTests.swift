import Foundation
import PokeSyncCore
import Testing

/// The exit-code article (`ExitCodes.md`) against the one table that decides exit codes
/// (`ExitStatus.init(_:)`): a section for every exit code, and every error code listed in
/// the section of the exit code the table gives it, once. The compiler keeps the table
/// exhaustive; this keeps the article true to it.
@Suite("Exit-code table and its article")
struct ExitCodeTableTests {
    static let article = TestPaths.packageRoot.appendingPathComponent("Sources/PokeSyncCore/PokeSyncCore.docc/ExitCodes.md")

    /// The article's `## N: ...` sections, each with the codes its `- \`code\`` lines name
    /// (a line may name several: `- \`compressedData\`, \`archiveData\`: ...`).
    static func sections() throws -> [(status: Int32, codes: [String])] {
        let text = try String(contentsOf: article, encoding: .utf8)
        var sections: [(status: Int32, codes: [String])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## "), let number = Int32(line.dropFirst(3).prefix { $0.isNumber }) {
                sections.append((number, []))
            } else if line.hasPrefix("- `"), !sections.isEmpty {
                // The names before the colon that ends the list of codes.
                let head = line.prefix { $0 != ":" }
                let names = head.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
                sections[sections.count - 1].codes += names
            }
        }
        return sections
    }

    @Test func everyExitCodeHasItsSectionInOrder() throws {
        let statuses = try Self.sections().map(\.status)
        #expect(statuses == ExitStatus.allCases.map(\.rawValue))
    }

    @Test func everyErrorCodeIsListedOnceUnderTheExitCodeTheTableGivesIt() throws {
        let sections = try Self.sections()
        let listed = sections.flatMap { section in section.codes.map { ($0, section.status) } }
        let known = Set(ErrorCode.allCases.map(\.rawValue))
        for (name, _) in listed { #expect(known.contains(name), "the article lists \(name), which is no ErrorCode") }
        for code in ErrorCode.allCases {
            let places = listed.filter { $0.0 == code.rawValue }.map(\.1)
            #expect(places == [ExitStatus(code).rawValue],
                    "\(code.rawValue): the table says \(ExitStatus(code).rawValue), the article lists it under \(places)")
        }
    }

    @Test func anErrorsExitCodeComesFromItsCode() {
        // The libraries' errors, pokesync's own, a cancellation and a stranger, through the one table.
        #expect(ExitStatus(for: StoreError.missing("/m")) == .usage)
        #expect(ExitStatus(for: StoreError.corrupt("/m", "x")) == .dataError)
        #expect(ExitStatus(for: LocalFileError(path: "/f", reason: "r")) == .ioError)
        #expect(ExitStatus(for: CancellationError()) == .interrupted)
        #expect(ExitStatus(for: CocoaError(.fileNoSuchFile)) == .ioError)
        #expect(ErrorCode(of: CocoaError(.fileNoSuchFile)) == .unclassified)
    }
}
