/// The type of a tar entry, from its header's typeflag byte.
public enum TarEntryType: Sendable, Equatable {
    case regularFile, directory
    case hardLink, symbolicLink, characterDevice, blockDevice, fifo, contiguousFile
    /// pax extended headers ('x', 'g') and GNU long name/link records ('L', 'K').
    case paxHeader, paxGlobalHeader, gnuLongName, gnuLongLink
    case other(UInt8)

    init(flag: UInt8) {
        switch flag {
        case UInt8(ascii: "0"), 0: self = .regularFile  // NUL: the pre-POSIX regular file
        case UInt8(ascii: "1"): self = .hardLink
        case UInt8(ascii: "2"): self = .symbolicLink
        case UInt8(ascii: "3"): self = .characterDevice
        case UInt8(ascii: "4"): self = .blockDevice
        case UInt8(ascii: "5"): self = .directory
        case UInt8(ascii: "6"): self = .fifo
        case UInt8(ascii: "7"): self = .contiguousFile
        case UInt8(ascii: "x"): self = .paxHeader
        case UInt8(ascii: "g"): self = .paxGlobalHeader
        case UInt8(ascii: "L"): self = .gnuLongName
        case UInt8(ascii: "K"): self = .gnuLongLink
        default: self = .other(flag)
        }
    }

    /// What the entry is, in words, for error messages ("a symbolic link").
    public var label: String {
        switch self {
        case .regularFile: "a regular file"
        case .directory: "a folder"
        case .hardLink: "a hard link"
        case .symbolicLink: "a symbolic link"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .fifo: "a FIFO"
        case .contiguousFile: "a contiguous file"
        case .paxHeader: "a pax extended header"
        case .paxGlobalHeader: "a pax global header"
        case .gnuLongName: "a GNU long-name record"
        case .gnuLongLink: "a GNU long-link record"
        case .other(let flag): "an entry of unknown type \(flag < 0x20 || flag > 0x7E ? "0x" + String(flag, radix: 16) : String(UnicodeScalar(flag)))"
        }
    }
}

/// One 512-byte ustar (or GNU) header, decoded and checked.
///
/// Only the fields pokesync uses are kept; mode, owner and times are checked to be valid
/// numbers and otherwise ignored, since extraction sets fixed modes and no owner.
public struct TarHeader: Sendable, Equatable {
    /// The full name bytes: ustar `prefix` + "/" + `name`, exactly as stored.
    public let nameBytes: [UInt8]
    public let type: TarEntryType
    /// The content size in bytes (the data blocks that follow the header).
    public let size: Int
    /// The link target of a link entry, as stored (never followed).
    public let linkNameBytes: [UInt8]

    /// The name as text, invalid UTF-8 shown as U+FFFD (for messages and listings).
    public var name: String { TarError.displayName(nameBytes) }
}

/// The byte layout of a ustar header block (POSIX.1-1988, as GNU tar and Python write it).
enum TarLayout {
    static let blockSize = 512
    /// GNU tar and Python's tarfile pad archives to 20 blocks; pokesync does the same.
    static let recordSize = 20 * blockSize
    /// Zero bytes accepted after the end-of-archive marker: far above any record padding a
    /// tar program writes, far below what a gzip bomb of zeros would expand to.
    static let maxTrailingPadding = 1 << 20

    static let name = 0..<100
    static let mode = 100..<108
    static let uid = 108..<116
    static let gid = 116..<124
    static let size = 124..<136
    static let mtime = 136..<148
    static let checksum = 148..<156
    static let typeflag = 156
    static let linkName = 157..<257
    static let magic = 257..<263
    static let version = 263..<265
    static let uname = 265..<297
    static let gname = 297..<329
    static let devMajor = 329..<337
    static let devMinor = 337..<345
    static let prefix = 345..<500

    static let ustarMagic: [UInt8] = Array("ustar\0".utf8)
    static let ustarVersion: [UInt8] = Array("00".utf8)
    /// GNU tar's pre-POSIX magic and version: "ustar  \0" over both fields.
    static let gnuMagic: [UInt8] = Array("ustar ".utf8)
    static let gnuVersion: [UInt8] = [UInt8(ascii: " "), 0]

    /// The largest size an 11-digit octal field holds (8 GiB - 1).
    static let maxOctalSize = (1 << 33) - 1

    /// The header checksum: the byte sum with the checksum field counted as spaces.
    /// Returns the unsigned sum and the signed one that some old tars wrote.
    static func checksums(_ block: UnsafeRawBufferPointer) -> (unsigned: Int, signed: Int) {
        var unsigned = 0
        var signed = 0
        for index in 0..<blockSize {
            let byte = checksum.contains(index) ? UInt8(ascii: " ") : block[index]
            unsigned += Int(byte)
            signed += Int(Int8(bitPattern: byte))
        }
        return (unsigned, signed)
    }
}

/// Why a numeric field could not be read.
enum TarNumberError: Error {
    case notOctal, negative, tooLarge
}

extension TarLayout {
    /// Reads a numeric field: octal digits (leading spaces allowed, ended by a space or NUL,
    /// nothing but spaces and NULs after) or GNU base-256 (first byte 0x80 or 0xFF).
    /// An empty field reads as 0, as tar programs do.
    static func number(_ field: UnsafeRawBufferPointer) throws(TarNumberError) -> Int {
        guard let first = field.first else { return 0 }
        if first & 0x80 != 0 {
            // Base-256: big-endian two's complement over the field, 0x80 marking positive.
            guard first == 0x80 else { throw .negative }
            var value = 0
            for byte in field.dropFirst() {
                guard value <= (Int.max >> 8) else { throw .tooLarge }
                value = value << 8 | Int(byte)
            }
            return value
        }
        var index = field.startIndex
        while index < field.endIndex && field[index] == UInt8(ascii: " ") { index += 1 }
        var value = 0
        while index < field.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(field[index]) {
            guard value <= (Int.max >> 3) else { throw .tooLarge }
            value = value << 3 | Int(field[index] - UInt8(ascii: "0"))
            index += 1
        }
        while index < field.endIndex {
            guard field[index] == 0 || field[index] == UInt8(ascii: " ") else { throw .notOctal }
            index += 1
        }
        return value
    }

    /// The bytes of `field` up to its first NUL, and whether non-NUL bytes follow that NUL.
    static func string(_ field: UnsafeRawBufferPointer) -> (bytes: [UInt8], hasBytesAfterNul: Bool) {
        guard let end = field.firstIndex(of: 0) else { return (Array(field), false) }
        return (Array(field[..<end]), field[end...].contains { $0 != 0 })
    }

    /// Writes `value` as zero-padded octal digits filling `field` but its last byte, a NUL.
    static func putOctal(_ value: Int, into block: inout [UInt8], field: Range<Int>) {
        let digits = Array(String(value, radix: 8).utf8)
        let width = field.count - 1
        precondition(digits.count <= width, "octal value \(value) does not fit \(width) digits")
        let start = field.lowerBound + width - digits.count
        for index in field.lowerBound..<start { block[index] = UInt8(ascii: "0") }
        block.replaceSubrange(start..<(start + digits.count), with: digits)
        block[field.upperBound - 1] = 0
    }
}
