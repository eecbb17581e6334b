import Foundation
import Testing
@testable import PokeSyncCore

@Suite("HTTP source")
struct HTTPSourceTests {
    func client() -> HTTPClient {
        var configuration = HTTPClientConfiguration()
        configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(5))
        return HTTPClient(configuration: configuration)
    }

    @Test func listsFollowNextAcrossPages() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let client = client()
            defer { client.invalidate() }
            let paged = HTTPSource(base: server.baseURL, client: client, pageLimit: 3)
            let whole = HTTPSource(base: server.baseURL, client: client)
            for kind in ResourceKind.defaultKinds {
                let pages = try await paged.list(kind)
                let one = try await whole.list(kind)
                #expect(pages.resources == one.resources)
                #expect(!pages.resources.isEmpty)
                #expect(pages.deployHash != nil)
            }
            let requests = try await server.stats().count(for: "/api/v2/pokemon/")
            #expect(requests >= 4 + 1)  // 11 pokemon in pages of 3, plus the one-page list
        }
    }

    @Test func documentsComeBackCanonicalAndConditional() async throws {
        try await withStandInServer(root: TestPaths.sample2026) { server in
            let client = client()
            defer { client.invalidate() }
            let source = HTTPSource(base: server.baseURL, client: client)
            let folder = try FolderSource(root: TestPaths.sample2026)
            guard case .content(let overHTTP, let validators, _, _) = try await source.fetch(.pokemon, id: 25, validators: nil),
                  case .content(let fromFolder, _, _, _) = try await folder.fetch(.pokemon, id: 25, validators: nil) else {
                Issue.record("expected content")
                return
            }
            #expect(overHTTP.bytes == fromFolder.bytes)
            #expect(!String(decoding: overHTTP.bytes, as: UTF8.self).contains("127.0.0.1"))
            #expect(validators.etag != nil)
            guard case .notModified = try await source.fetch(.pokemon, id: 25, validators: validators) else {
                Issue.record("expected a 304")
                return
            }
        }
    }
}
