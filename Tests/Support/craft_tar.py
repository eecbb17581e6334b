#!/usr/bin/env python3
"""Crafts hostile or damaged .tar.gz archives for the safe-extraction tests.

Usage: craft_tar.py KIND OUT [COUNT]

Most archives are made with tarfile; the ones tarfile refuses to write (bad checksums,
size lies, NUL in names, gzip bombs) are assembled from raw header blocks. Memory stays
bounded: big archives are streamed, and a gzip bomb is one compressed member of zeros
repeated (concatenated gzip members are one valid stream).
"""
import gzip
import io
import sys
import tarfile
import zlib

BLOCK = 512
RECORD = 20 * BLOCK


def info(name, type=tarfile.REGTYPE, size=0, linkname=""):
    member = tarfile.TarInfo(name)
    member.type = type
    member.size = size
    member.linkname = linkname
    member.mode = 0o755 if type == tarfile.DIRTYPE else 0o644
    return member


def header(member, format=tarfile.USTAR_FORMAT):
    return member.tobuf(format=format, encoding="utf-8", errors="surrogateescape")


def padded(data):
    return data + bytes(-len(data) % BLOCK)


def end_of_archive(written):
    total = written + 2 * BLOCK
    return bytes(2 * BLOCK + (-total % RECORD))


def with_checksum(block):
    block = bytearray(block)
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def write_gz(out, data):
    with open(out, "wb") as f:
        f.write(gzip.compress(data, mtime=0))


def with_tarfile(out, members, format=tarfile.USTAR_FORMAT):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=format) as archive:
        for member, data in members:
            archive.addfile(member, io.BytesIO(data) if data is not None else None)
    write_gz(out, buffer.getvalue())


def raw(out, blocks):
    data = b"".join(blocks)
    write_gz(out, data + end_of_archive(len(data)))


def file_entry(name, data=b"x"):
    return (info(name, size=len(data)), data)


def craft(kind, out, count):
    if kind == "dotdot":
        with_tarfile(out, [file_entry("ok.txt"), file_entry("../escaped.txt")])
    elif kind == "dotdot-inner":
        with_tarfile(out, [file_entry("a/../../escaped.txt")])
    elif kind == "absolute":
        with_tarfile(out, [file_entry("/tmp/pokesync-absolute.txt")])
    elif kind == "symlink":
        with_tarfile(out, [(info("link", tarfile.SYMTYPE, linkname="/etc"), None),
                           file_entry("link/passwd")])
    elif kind == "hardlink":
        with_tarfile(out, [file_entry("a.txt"), (info("b.txt", tarfile.LNKTYPE, linkname="/etc/passwd"), None)])
    elif kind == "device":
        member = info("null", tarfile.CHRTYPE)
        member.devmajor, member.devminor = 1, 3
        with_tarfile(out, [(member, None)])
    elif kind == "fifo":
        with_tarfile(out, [(info("pipe", tarfile.FIFOTYPE), None)])
    elif kind == "pax":
        # A non-ASCII name longer than ustar holds makes tarfile write a pax 'x' header.
        with_tarfile(out, [file_entry("é" * 120)], format=tarfile.PAX_FORMAT)
    elif kind == "gnu-longname":
        with_tarfile(out, [file_entry("n" * 150)], format=tarfile.GNU_FORMAT)
    elif kind == "duplicate":
        with_tarfile(out, [file_entry("a.txt", b"first"), file_entry("a.txt", b"second")])
    elif kind == "file-then-dir":
        with_tarfile(out, [file_entry("a", b"file"), file_entry("a/b", b"inside")])
    elif kind == "dir-then-file":
        with_tarfile(out, [file_entry("a/b", b"inside"), file_entry("a", b"file")])
    elif kind == "dot":
        with_tarfile(out, [file_entry("./a.txt")])
    elif kind == "empty-component":
        with_tarfile(out, [file_entry("a//b.txt")])
    elif kind == "backslash":
        with_tarfile(out, [file_entry("a\\..\\..\\b.txt")])
    elif kind == "nul":
        block = bytearray(header(info("ok.txt", size=1)))
        block[7:11] = b"/../"  # bytes after the name's NUL terminator
        raw(out, [with_checksum(block), padded(b"x")])
    elif kind == "v7":
        block = bytearray(header(info("old.txt", size=1)))
        block[257:265] = bytes(8)  # no ustar magic: a pre-POSIX header
        raw(out, [with_checksum(block), padded(b"x")])
    elif kind == "bad-checksum":
        block = bytearray(header(info("a.txt", size=1)))
        block[0] ^= 0x01  # "`.txt": the stored checksum no longer matches
        raw(out, [bytes(block), padded(b"x")])
    elif kind == "bad-octal":
        block = bytearray(header(info("a.txt", size=1)))
        block[124:136] = b"0000000009x\0"
        raw(out, [with_checksum(block), padded(b"x")])
    elif kind == "size-lie":
        # The header promises 100000 bytes; 10 follow, then the end marker and padding.
        raw(out, [header(info("liar.bin", size=100000)), padded(b"0123456789")])
    elif kind == "huge-size":
        # 2**40 bytes in GNU base-256; nothing follows.
        raw(out, [header(info("huge.bin", size=2 ** 40), format=tarfile.GNU_FORMAT)])
    elif kind == "huge-octal":
        raw(out, [header(info("big.bin", size=8 ** 11 - 1))])
    elif kind == "many-files":
        # `count` zero-length files, streamed: a tar bomb of entries.
        with open(out, "wb") as f:
            compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
            for index in range(count):
                f.write(compressor.compress(header(info("f%07d" % index))))
            f.write(compressor.compress(end_of_archive(count * BLOCK)))
            f.write(compressor.flush())
    elif kind in ("zeros-tail", "zeros-content"):
        # A gzip bomb: count MiB of zeros. zeros-tail: a valid one-file archive, then zeros
        # past the end marker; zeros-content: one file whose content is all those zeros.
        size = count << 20
        member_size = 64 << 20
        with open(out, "wb") as f:
            if kind == "zeros-tail":
                first, _ = file_entry("a.txt")
                f.write(gzip.compress(header(first) + padded(b"x"), mtime=0))
            else:
                f.write(gzip.compress(header(info("zeros.bin", size=size)), mtime=0))
            member = gzip.compress(bytes(member_size), compresslevel=9, mtime=0)
            for _ in range(size // member_size):
                f.write(member)
            if kind == "zeros-content":
                f.write(gzip.compress(end_of_archive(BLOCK + size), mtime=0))
    else:
        sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    craft(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
