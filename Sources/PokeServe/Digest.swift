import PokeArchive

// The two PokeArchive names this target uses, under names that do not clash with
// Foundation's on platforms that have a SHA256 of their own.
typealias PokeArchiveDigest = SHA256Digest
typealias PokeArchiveSHA256 = SHA256
