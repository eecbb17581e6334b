import Foundation
import Testing

/// The README's first example is what the program prints: `Tests/Support/check_readme_examples.py`
/// runs `demo.sh` (offline: the sample data behind the stand-in) with the built binary and
/// compares every stable line of the README's "Start" example with the demo's output.
@Suite("README examples")
struct ReadmeExamplesTests {
    @Test func theStartExampleIsWhatTheDemoPrints() async throws {
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/Support/check_readme_examples.py")
        let result = try await runProgram("python3", [script.path, PokesyncCLI.binary.path])
        #expect(result.status == 0, "\(result.text)\n\(result.stderr)")
        #expect(result.text.contains("README example lines printed by the demo"))
    }
}
