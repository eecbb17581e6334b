import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PokedexReader
import PokedexUpdater
import Testing

/// The app's `URLSessionConfiguration` reaches the updater's requests as it was when the
/// settings took it: the settings keep a copy, so the app may go on changing its own.
@Suite("Updater: the app's session configuration", .serialized)
struct UpdaterConfigurationTests {
    @Test("every request carries the configuration's header as handed in, not as the app changed it after")
    func configurationAsHandedIn() async throws {
        try await withTemporaryDirectory { root in
            let world = try await UpdaterTests.makeWorld(in: root)
            let server = try BundleServer.start(serving: world.bundles(2))
            defer { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["User-Agent": "pokedex-app/1"]
            let settings = UpdaterSettings(timeout: 30, configuration: configuration)
            configuration.httpAdditionalHeaders = ["User-Agent": "changed-after/2"]

            let result = try await Updater(folder: world.device, settings: settings).update(from: server.indexURL)
            #expect(result.installedVersion == 2)
            let agents = server.userAgents()
            #expect(agents.count >= 2 && agents.allSatisfy { $0 == "pokedex-app/1" }, "\(agents)")
        }
    }
}
