import Foundation
import Testing

/// What an app sees of the library is documented, and stays so: every public declaration
/// of PokedexReader and of PokedexUpdater has a `///` comment, with `- Throws:` where it
/// throws (`Tests/Support/check_docs.py` reads the sources).
@Suite struct PublicDocsTests {
    @Test(arguments: ["PokedexReader", "PokedexUpdater"])
    func everyPublicDeclarationIsDocumented(module: String) async throws {
        let root = ReaderFixtures.packageRoot
        let (status, text) = try await ReaderFixtures.run(["python3", root.appendingPathComponent("Tests/Support/check_docs.py").path,
                                                     root.appendingPathComponent("Sources/\(module)").path])
        #expect(status == 0, "\(module): \(text)")
    }
}
