import Foundation
import Testing

/// What an app sees of the library is documented, and stays so: every public declaration
/// of PokedexReader has a `///` comment, with `- Throws:` where it throws
/// (`Tests/Support/check_docs.py` reads the sources).
@Suite struct PublicDocsTests {
    @Test func everyPublicDeclarationIsDocumented() throws {
        let root = ReaderFixtures.packageRoot
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Tests/Support/check_docs.py").path,
                             root.appendingPathComponent("Sources/PokedexReader").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
