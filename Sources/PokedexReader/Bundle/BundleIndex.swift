/// `index.json`: what a device reads first, to choose between a delta and the full bundle.
package struct BundleIndex: Codable, Sendable, Equatable {
    package static let format = "pokesync-index"
    package static let currentFormatVersion = 1

    /// One downloadable file the index names.
    package struct Entry: Codable, Sendable, Equatable {
        /// The base version, for a delta.
        package var from: Int?
        /// The version the file installs (`version` for a full bundle, `to` for a delta).
        package var to: Int
        /// The file name, relative to the index.
        package var file: String
        /// The download's exact size: a device caps the download at it.
        package var size: Int
        /// What the archive unpacks to: a device caps extraction at it.
        package var unpackedSize: Int
        package var sha256: String

        enum CodingKeys: String, CodingKey {
            case from, to, version, file, size, unpackedSize = "unpacked_size", sha256
        }

        package init(from: Int? = nil, to: Int, file: String, size: Int, unpackedSize: Int, sha256: String) {
            self.from = from
            self.to = to
            self.file = file
            self.size = size
            self.unpackedSize = unpackedSize
            self.sha256 = sha256
        }

        // The index (<doc:PokeSyncCore/Bundles#The-index>) writes a full bundle as {"version": 7, ...} and a delta as {"from": 6, "to": 7, ...}.
        package init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            from = try values.decodeIfPresent(Int.self, forKey: .from)
            if from == nil, let version = try values.decodeIfPresent(Int.self, forKey: .version) {
                to = version
            } else {
                to = try values.decode(Int.self, forKey: .to)
            }
            file = try values.decode(String.self, forKey: .file)
            size = try values.decode(Int.self, forKey: .size)
            unpackedSize = try values.decode(Int.self, forKey: .unpackedSize)
            sha256 = try values.decode(String.self, forKey: .sha256)
        }

        package func encode(to encoder: any Encoder) throws {
            var values = encoder.container(keyedBy: CodingKeys.self)
            if let from {
                try values.encode(from, forKey: .from)
                try values.encode(to, forKey: .to)
            } else {
                try values.encode(to, forKey: .version)
            }
            try values.encode(file, forKey: .file)
            try values.encode(size, forKey: .size)
            try values.encode(unpackedSize, forKey: .unpackedSize)
            try values.encode(sha256, forKey: .sha256)
        }
    }

    package var format: String
    package var formatVersion: Int
    package var schemaVersion: Int
    package var lineage: String
    package var latest: Int
    package var profile: BundleProfile
    package var full: Entry
    package var deltas: [Entry]

    enum CodingKeys: String, CodingKey {
        case format, formatVersion = "format_version", schemaVersion = "schema_version", lineage, latest
        case profile, full, deltas
    }

    package init(schemaVersion: Int = DeviceSchema.version, lineage: String, profile: BundleProfile,
                full: Entry, deltas: [Entry]) {
        self.format = Self.format
        self.formatVersion = Self.currentFormatVersion
        self.schemaVersion = schemaVersion
        self.lineage = lineage
        self.latest = full.to
        self.profile = profile
        self.full = full
        self.deltas = deltas
    }

    /// Why the index cannot be trusted as a whole, or nil: a format this reader does not
    /// know, or versions that disagree (`latest` must be the full bundle's version and
    /// every delta's target, or a device would name a version it does not hold).
    package var inconsistency: String? {
        if format != Self.format || formatVersion > Self.currentFormatVersion {
            return "is \(format) format \(formatVersion), not one this reader knows"
        }
        if full.to != latest || full.from != nil { return "names version \(latest) but its full bundle is version \(full.to)" }
        if let delta = deltas.first(where: { $0.to != latest || $0.from == nil || $0.from! >= latest }) {
            return "has a delta \(delta.file) that does not lead to version \(latest)"
        }
        return nil
    }

    /// The file names the index points at.
    package var files: [String] { [full.file] + deltas.map(\.file) }
}
