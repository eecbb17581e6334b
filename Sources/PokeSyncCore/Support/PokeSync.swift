/// pokesync's own name and version, as it says them to servers.
package enum PokeSync {
    /// The release, raised with each one (and the package line in the README and
    /// PokedexReader's article with it).
    package static let version = "0.3.0"

    /// The commit the binary was built from: `git describe` of the checkout, which the
    /// Makefile (`make build`, `static`, `install`) writes into `BuildCommit.generated.swift`
    /// (ignored by git) and compiles in with `-DPOKESYNC_BUILD_COMMIT`; nil for a plain
    /// `swift build`, or a build from outside a git checkout. With the release it tells two
    /// builds apart, so an upgrade is visible in `pokesync --version` and `status --json`.
    package static let commit: String? = {
        #if POKESYNC_BUILD_COMMIT
        return buildCommit
        #else
        return nil
        #endif
    }()

    /// `0.3.0 (commit 99a9027ab12c)`, or `0.3.0 (unknown commit)`: what `--version` prints
    /// after the program's name.
    package static var versionLine: String {
        "\(version) (\(commit.map { "commit \($0)" } ?? "unknown commit"))"
    }

    /// The one User-Agent pokesync sends: the API's fair-use policy asks clients to say who
    /// they are; `contact` (mirror.json) lets its operators reach the mirror's owner. No
    /// address of pokesync's own: it has none to give, and an operator speaks for themselves.
    package static func userAgent(contact: String?) -> String {
        var agent = "pokesync/\(version) (offline PokeAPI mirror"
        if let contact { agent += "; \(contact)" }
        return agent + ")"
    }
}
