import Foundation

/// One page of a PokeAPI list: `{count, next, previous, results: [{name, url}]}`.
/// The same shape is the api-data folder's `index.json` (with `next` null).
struct ListPage {
    var count: Int
    var next: String?
    var results: [ListedResource]

    /// - Throws: `SourceError` (exit 65) naming `resource` when the page is not a list.
    static func parse(_ data: Data, kind: ResourceKind, resource: String) throws -> ListPage {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let count = object["count"] as? Int,
              let results = object["results"] as? [[String: Any]] else {
            throw SourceError(resource: resource, reason: "not a PokeAPI list ({count, next, results})",
                              problem: .invalidAnswer)
        }
        var listed: [ListedResource] = []
        listed.reserveCapacity(results.count)
        for entry in results {
            guard let url = entry["url"] as? String, let id = ListedResource.id(fromURL: url) else {
                throw SourceError(resource: resource, reason: "list entry without a numeric resource URL",
                                  problem: .invalidAnswer)
            }
            listed.append(ListedResource(kind: kind, id: id, name: entry["name"] as? String))
        }
        return ListPage(count: count, next: object["next"] as? String, results: listed)
    }
}
