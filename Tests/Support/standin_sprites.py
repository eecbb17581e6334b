"""Small, valid, deterministic sprite images and cries for the stand-in server.

The bytes depend only on the seed (the file's path, plus a salt when one
applies), so the same path always gives the same file and a salt changes it.
"""

import fnmatch
import hashlib
import struct
import zlib

SIDE = 16
CONTENT_TYPES = {".png": "image/png", ".gif": "image/gif", ".svg": "image/svg+xml", ".ogg": "audio/ogg"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _stream(seed, length):
    """`length` pseudo-random bytes derived from the seed."""
    return hashlib.shake_256(seed.encode("utf-8")).digest(length)


def _png_chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(seed):
    """A 16x16 8-bit RGB PNG: signature, IHDR, one IDAT, IEND, all CRCs correct."""
    pixels = _stream(seed, SIDE * SIDE * 3)
    row_bytes = SIDE * 3
    # Each scanline starts with filter type 0 (None).
    raw = b"".join(b"\x00" + pixels[row * row_bytes:(row + 1) * row_bytes] for row in range(SIDE))
    header = struct.pack(">IIBBBBB", SIDE, SIDE, 8, 2, 0, 0, 0)
    return (PNG_SIGNATURE + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(raw)) + _png_chunk(b"IEND", b""))


def _lzw_codes(indices):
    """LZW codes for 2-bit pixels that never grow past 3 bits.

    A clear code before every pair of pixels keeps the decoder's table at
    codes 6 and below, so every code fits in the initial 3-bit width.
    """
    clear, end = 4, 5
    codes = []
    for start in range(0, len(indices), 2):
        codes.append(clear)
        codes.extend(indices[start:start + 2])
    codes.append(end)
    return codes


def gif(seed):
    """A 16x16 GIF89a with a 4-colour global table and a valid LZW image."""
    material = _stream(seed, 12 + SIDE * SIDE)
    palette = material[:12]
    indices = [value & 0x03 for value in material[12:]]
    accumulator, bit_count, packed = 0, 0, bytearray()
    for code in _lzw_codes(indices):
        accumulator |= code << bit_count
        bit_count += 3
        while bit_count >= 8:
            packed.append(accumulator & 0xFF)
            accumulator >>= 8
            bit_count -= 8
    if bit_count:
        packed.append(accumulator & 0xFF)
    blocks = b"".join(bytes([len(packed[i:i + 255])]) + bytes(packed[i:i + 255])
                      for i in range(0, len(packed), 255))
    screen = struct.pack("<HHBBB", SIDE, SIDE, 0x91, 0, 0)  # global table of 4 colours
    image = b"\x2c" + struct.pack("<HHHHB", 0, 0, SIDE, SIDE, 0)
    return b"GIF89a" + screen + palette + image + b"\x02" + blocks + b"\x00" + b"\x3b"


def svg(seed):
    """A small SVG document: one square filled with a colour derived from the seed."""
    colour = _stream(seed, 3).hex()
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIDE}" height="{SIDE}" '
            f'viewBox="0 0 {SIDE} {SIDE}"><rect width="{SIDE}" height="{SIDE}" '
            f'fill="#{colour}"/></svg>\n').encode("utf-8")


def _ogg_crc(data):
    """The Ogg page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, initial 0."""
    crc = 0
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else (crc << 1)
            crc &= 0xFFFFFFFF
    return crc


def _ogg_page(header_type, granule, serial, sequence, payload):
    """One Ogg page (RFC 3533) holding `payload` (< 255 * 255 bytes) as one packet."""
    lacing = [255] * (len(payload) // 255) + [len(payload) % 255]
    head = (b"OggS" + bytes([0, header_type]) + struct.pack("<qII", granule, serial, sequence)
            + b"\x00\x00\x00\x00" + bytes([len(lacing)]) + bytes(lacing))
    crc = _ogg_crc(head + payload)
    return head[:22] + struct.pack("<I", crc) + head[26:] + payload


def ogg(seed):
    """A small Ogg stream: a first page (BOS) and a last page (EOS), checksums correct.

    The packets are seed-derived bytes, not a playable Vorbis stream: what pokesync checks
    is the container (the capture pattern, a whole stream ending in an EOS page)."""
    material = _stream(seed, 400)
    serial = struct.unpack("<I", material[:4])[0]
    return (_ogg_page(0x02, 0, serial, 0, b"\x01stand-in" + material[4:40])
            + _ogg_page(0x04, 48000, serial, 1, material[40:]))


def matches(path, globs):
    """True when the sprite path (below sprites/) matches one of the comma-separated globs."""
    return any(fnmatch.fnmatchcase(path, glob.strip()) for glob in globs.split(",") if glob.strip())


def render(path, salt, salt_glob):
    """(bytes, content type) for a path below sprites/ or cries/, or None for other extensions."""
    extension = path[path.rfind("."):].lower() if "." in path else ""
    if extension not in CONTENT_TYPES:
        return None
    seed = path
    if salt and matches(path, salt_glob):
        seed = f"{salt}\x00{path}"
    maker = {".png": png, ".gif": gif, ".svg": svg, ".ogg": ogg}[extension]
    return maker(seed), CONTENT_TYPES[extension]
