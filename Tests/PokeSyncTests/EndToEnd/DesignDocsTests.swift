import Foundation
import Testing

/// The design lives in the repo, in the DocC catalogs beside the code, and every pointer to
/// it leads somewhere: `Tests/Support/check_doc_links.py` reads every comment in `Sources/`
/// and `Tests/`, every article and the README, and fails on a `<doc:>` link to a missing
/// article or section, a relative link to a missing file or heading (the README's links
/// into the articles included), an article its landing page's Topics does not list, or a
/// line anywhere in the sources, tests, scripts or README that cites an issue number or a
/// document the repo does not have (a newcomer cannot follow either).
@Suite("Design docs")
struct DesignDocsTests {
    static let checker = SourceChecker("check_doc_links.py", allWell: "every design link resolves")

    @Test func everyDesignLinkInTheRepoResolves() async throws {
        try await Self.checker.expectRepositoryKeepsTheRule()
    }

    /// The checker is not vacuous: in a small tree of its own, each kind of broken pointer
    /// is named, and the run fails.
    @Test func theCheckerNamesEachBrokenPointer() async throws {
        let tree: KeyValuePairs<String, String> = [
            "Sources/Thing/Thing.docc/Thing.md": "# ``Thing``\n\n## Topics\n\n- <doc:Guide>\n",
            "Sources/Thing/Thing.docc/Guide.md": "# Guide\n\n## Real section\n\nSee <doc:Missing>.\n",
            "Sources/Thing/Thing.docc/Unlisted.md": "# Unlisted\n",
            "Sources/Thing/Code.swift": "// <doc:Guide#No-such-section>\n// See DESIGN, section 4.\nlet x = 1\n",
            "Tests/ThingTests.swift": "// <doc:Guide>\n@Suite(\"Updater hardening (issue 14)\")\n"
                + "// Fixed upstream: https://github.com/swiftlang/swift-corelibs-foundation/issues/3204\n"
                + "// Prints \"#25 pikachu\"; <doc:Thing/Guide#Real-section>\n",
            "Tests/Support/tool.py": "# Targets (see #12): REDTEAM.md and PLATFORM.md say why.\n",
            "README.md": "[ok](Sources/Thing/Thing.docc/Guide.md#real-section), "
                + "[bad](Sources/Thing/Thing.docc/Guide.md#gone), [missing](Sources/Thing/Thing.docc/Nope.md)\n"
                + "After issues 27 to 31 the server kept up.\n",
        ]
        // The whole check, then the citation check alone, as the lead re-runs it after merging other branches.
        let (result, citations) = try await Self.checker.withTree(tree) { root in
            (try await Self.checker.run(root), try await Self.checker.run(root, options: ["--citations"]))
        }
        #expect(result.status == 1, "\(result.text)\n\(result.stderr)")
        for expected in ["Code.swift:1: <doc:Guide#No-such-section>",
                         "Code.swift:2: cites a document the repo does not have ('DESIGN')",
                         "Guide.md:5: <doc:Missing>", "does not list <doc:Unlisted>",
                         "README.md:1: link to Sources/Thing/Thing.docc/Guide.md#gone",
                         "README.md:1: link to Sources/Thing/Thing.docc/Nope.md: no such file",
                         "README.md:2: cites an issue number ('issues 27')",
                         "ThingTests.swift:1: <doc:Guide> must name its target",
                         "ThingTests.swift:2: cites an issue number ('issue 14')",
                         "tool.py:1: cites an issue number ('#12')",
                         "tool.py:1: cites a document the repo does not have ('REDTEAM.md')"] {
            #expect(result.text.contains(expected), "no \(expected) in:\n\(result.text)")
        }
        // A link that resolves, a URL naming an issue (it can be followed) and a dex number are no problem.
        for fine in ["#real-section", "ThingTests.swift:3", "ThingTests.swift:4"] {
            #expect(!result.text.contains(fine), "\(fine) in:\n\(result.text)")
        }
        #expect(citations.status == 1 && citations.text.contains("ThingTests.swift:2: cites an issue number"), "\(citations.text)")
        #expect(!citations.text.contains("<doc:"), "\(citations.text)")
    }

    /// The data-flow article's target table is Package.swift's: a target left out, one named
    /// twice, a dependency missing or added, and a name that is no target are each named.
    @Test func theTargetTableIsThePackages() async throws {
        let package = """
            let package = Package(name: "thing", targets: [
                .systemLibrary(name: "CThing", path: "Sources/CThing"),
                .target(name: "Core", dependencies: ["CThing", .target(name: "CNet", condition: .when(platforms: [.linux]))]),
                .systemLibrary(name: "CNet", path: "Sources/CNet"),
                .executableTarget(name: "tool", dependencies: ["Core"]),
                .target(name: "Extra"),
                .testTarget(name: "CoreTests", dependencies: ["Core"]),
            ])
            """
        let article = """
            # Data flow

            ## The targets

            | target | what | depends on |
            |---|---|---|
            | `CThing`, `CNet` | system libraries | the system |
            | `Core` | the core | `CThing`, Foundation |
            | `tool` | the command line | `Core`, `CThing` |
            | `Gone` | removed long ago | nothing |
            | `tool` | again | `Core` |

            ## After
            """
        let tree: KeyValuePairs<String, String> = [
            "Package.swift": package,
            "Sources/Thing/Thing.docc/Thing.md": "# ``Thing``\n\n## Topics\n\n- <doc:DataFlow>\n",
            "Sources/Thing/Thing.docc/DataFlow.md": article,
        ]
        let result = try await Self.checker.withTree(tree) { root in try await Self.checker.run(root) }
        #expect(result.status == 1, "\(result.text)\n\(result.stderr)")
        for expected in ["DataFlow.md:8: `Core` depends on CThing, CNet; the row lacks CNet",
                         "DataFlow.md:9: `tool` depends on Core; the row adds CThing",
                         "DataFlow.md:10: `Gone` is no target of Package.swift",
                         "DataFlow.md:11: `tool` has a row already (line 9)",
                         "## The targets has no row for `Extra`"] {
            #expect(result.text.contains(expected), "no \(expected) in:\n\(result.text)")
        }
        // The system row is right, and test targets need no row.
        for fine in ["DataFlow.md:7", "CoreTests"] {
            #expect(!result.text.contains(fine), "\(fine) in:\n\(result.text)")
        }
    }
}
