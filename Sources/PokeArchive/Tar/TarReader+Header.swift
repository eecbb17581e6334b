extension TarReader {
    /// Decodes and checks one non-zero header block found at stream `offset`.
    func decodeHeader(_ block: UnsafeRawBufferPointer, offset: Int) throws -> TarHeader {
        func field(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: block[range])
        }
        // The checksum first: until it matches, nothing in the block can be trusted.
        let sums = TarLayout.checksums(block)
        guard let stored = try? TarLayout.number(field(TarLayout.checksum)),
              stored == sums.unsigned || stored == sums.signed else {
            throw TarError.corrupt(archive: path, entry: nil,
                                   reason: "the header at byte \(offset) has a wrong checksum")
        }
        let magic = Array(field(TarLayout.magic))
        let version = Array(field(TarLayout.version))
        let isPOSIX = magic == TarLayout.ustarMagic && version == TarLayout.ustarVersion
        let isGNU = magic == TarLayout.gnuMagic && version == TarLayout.gnuVersion
        guard isPOSIX || isGNU else {
            throw TarError.corrupt(archive: path, entry: nil,
                                   reason: "the header at byte \(offset) is not a ustar or GNU tar header")
        }

        let shortName = TarLayout.string(field(TarLayout.name))
        // GNU headers keep other data where ustar has its prefix.
        let prefix = isPOSIX ? TarLayout.string(field(TarLayout.prefix)) : (bytes: [], hasBytesAfterNul: false)
        let nameBytes = prefix.bytes.isEmpty ? shortName.bytes : prefix.bytes + [UInt8(ascii: "/")] + shortName.bytes
        let name = TarError.displayName(nameBytes)
        if shortName.hasBytesAfterNul || prefix.hasBytesAfterNul {
            throw TarError.unsafeEntry(archive: path, entry: name, reason: "a NUL byte in the name")
        }

        func number(_ range: Range<Int>, _ label: String) throws -> Int {
            do {
                return try TarLayout.number(field(range))
            } catch {
                let why = switch error {
                case .notOctal: "is not an octal number"
                case .negative: "is negative"
                case .tooLarge: "is too large"
                }
                throw TarError.corrupt(archive: path, entry: name, reason: "the \(label) field \(why)")
            }
        }
        let size = try number(TarLayout.size, "size")
        // Checked only to be numbers: extraction sets its own modes and no owner or time.
        for (range, label) in [(TarLayout.mode, "mode"), (TarLayout.uid, "uid"), (TarLayout.gid, "gid"), (TarLayout.mtime, "mtime")] {
            _ = try number(range, label)
        }
        return TarHeader(nameBytes: nameBytes, type: TarEntryType(flag: block[TarLayout.typeflag]),
                         size: size, linkNameBytes: TarLayout.string(field(TarLayout.linkName)).bytes)
    }
}
