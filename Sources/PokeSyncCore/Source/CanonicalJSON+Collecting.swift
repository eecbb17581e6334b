extension CanonicalScanner {
    /// A container opens inside the collected member: remember where its path ends.
    mutating func enterContainer() {
        pathMarks.append(pathBytes.count)
        nextIndices.append(0)
    }

    /// A container closes; at the collected member's own end, collecting stops.
    mutating func leaveContainer(newDepth: Int) {
        pathMarks.removeLast()
        nextIndices.removeLast()
        if newDepth < collectDepth {
            collectDepth = 0
            pathBytes.removeAll(keepingCapacity: true)
        }
    }

    /// A member of an object inside the collected member: its key becomes the last path part.
    mutating func enterMember(key: Range<Int>) {
        truncatePathToContainer()
        let decoded = decodeCanonical(key)
        pathBytes.append(contentsOf: decoded.utf8)
    }

    /// An element of an array inside the collected member: its index becomes the last path part.
    mutating func enterArrayElement() {
        truncatePathToContainer()
        let index = nextIndices[nextIndices.count - 1]
        nextIndices[nextIndices.count - 1] = index + 1
        pathBytes.append(contentsOf: String(index).utf8)
    }

    private mutating func truncatePathToContainer() {
        let mark = pathMarks[pathMarks.count - 1]
        pathBytes.removeSubrange(mark...)
        if mark > 0 { pathBytes.append(ASCII.slash) }
    }

    /// The text of canonical string contents already written to `output`.
    func decodeCanonical(_ range: Range<Int>) -> String {
        let contents = UnsafeBufferPointer(start: output + range.lowerBound, count: range.count)
        guard contents.contains(ASCII.backslash) else { return String(decoding: contents, as: UTF8.self) }
        // Canonical strings keep only `\"`, `\\`, the short control escapes and `\u00xx`.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(contents.count)
        var index = 0
        while index < contents.count {
            let byte = contents[index]
            guard byte == ASCII.backslash else {
                bytes.append(byte)
                index += 1
                continue
            }
            let letter = contents[index + 1]
            switch letter {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(ASCII.newline)
            case UInt8(ascii: "r"): bytes.append(ASCII.carriageReturn)
            case UInt8(ascii: "t"): bytes.append(ASCII.tab)
            case UInt8(ascii: "u"):
                let hex = String(decoding: contents[index + 4 ..< index + 6], as: UTF8.self)
                bytes.append(UInt8(hex, radix: 16)!)
                index += 4
            default: bytes.append(letter)
            }
            index += 2
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
