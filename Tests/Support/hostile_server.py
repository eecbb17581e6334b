#!/usr/bin/env python3
"""A hostile stand-in for pokeapi.co: a minimal valid API whose one document (or sprite) attacks.

    python3 Tests/Support/hostile_server.py --mode MODE [--host 127.0.0.1] [--port 0]
        [--port-file FILE] [--pid-file FILE] [--size BYTES] [--quiet]

Every mode but `silent` serves the four lists (/api/v2/{kind}/?limit=..), each naming one
resource with id 1, and small valid documents /api/v2/{kind}/1/, except the one hostile
document, /api/v2/pokemon/1/. By --mode:

    gzip-bomb    pokemon/1 is `Content-Encoding: gzip`, about 1 KB on the wire per MiB
                 decoded (--size decoded bytes, default 2 GiB), generated as it is sent
    no-length    pokemon/1 is a 200 without Content-Length streaming --size bytes
                 (default 1 GiB), then closing
    huge-sprite  pokemon/1 is valid and names the sprite sprites/pokemon/1.png, served at
                 /PokeAPI/sprites/master/sprites/pokemon/1.png as a PNG of --size bytes
                 (default 100 MB) without Content-Length, so that only counting stops it
    trickle      pokemon/1 sends headers with Content-Length --size (default 1000000),
                 then one byte a second
    silent       accepts every connection and never answers
    endless      pokemon/1 and /index.json are 200s, chunked, that never end
    endless-files  the pokemon list names pokemon 1 to 8, each valid and naming its sprite
                 and its cry; every sprite, every cry (/PokeAPI/cries/main/cries/pokemon/
                 latest/N.ogg, audio/ogg) and /index.json are 200s, chunked, that never end

With --stats-file FILE, the bytes written of every hostile body are counted: the file is
JSON, rewritten every 100 ms while a body streams and when it ends:
{"bodies": N, "streaming": N, "largest": BYTES, "sent": [BYTES, ...]} (`sent`: one count
per finished body, the peer's own count of what it wrote into the socket).

With --tls-cert-dir DIR it speaks HTTPS with a self-signed certificate for 127.0.0.1 made
as tls_server.py makes it (DIR/cert.pem): a client that trusts it meets the same bodies over TLS.

Nothing large is held in memory: bodies are made from one repeated block. A client that goes
away ends its answer. Python 3 standard library only.
"""

import argparse
import http.server
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import zlib

# The ten kinds pokesync mirrors (Sources.md, Kinds): the four the apps are built on,
# then the six reference kinds.
KINDS = ("pokemon", "pokemon-species", "pokedex", "evolution-chain",
         "type", "ability", "move", "stat", "version", "language")
SPRITE_PATH = "/PokeAPI/sprites/master/sprites/pokemon/1.png"
UPSTREAM_SPRITE = "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/pokemon/1.png"
DEFAULT_SIZES = {"gzip-bomb": 2 << 30, "no-length": 1 << 30, "huge-sprite": 100_000_000,
                 "trickle": 1_000_000, "silent": 0, "endless": 0,
                 "endless-files": 0}
CRY_PATH = "/PokeAPI/cries/main/cries/pokemon/latest/1.ogg"
ENDLESS_IDS = {str(n) for n in range(1, 9)}
ENDLESS_FILE = re.compile(r"^/PokeAPI/(sprites/master/sprites/pokemon/[1-8]\.png|cries/main/cries/pokemon/latest/[1-8]\.ogg)$")
UPSTREAM_CRY = "https://raw.githubusercontent.com/PokeAPI/cries/main/cries/pokemon/latest/1.ogg"
MIB = 1 << 20
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def gzip_bomb(decoded_size):
    """Yields a gzip stream of `decoded_size` zero bytes (a whole number of MiB), block by block.

    A deflate block flushed with Z_FULL_FLUSH starts from a reset state, so the compressed
    form of one MiB of zeros is the same every time: it is made once and repeated.
    """
    mebibytes = max(1, decoded_size // MIB)
    zeros = bytes(MIB)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressor.compress(zeros)
    compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    yield b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip header: deflate, no name, no time
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(zeros, crc)
        yield block
    # An empty final block, then the trailer: CRC-32 and size modulo 2^32.
    yield b"\x03\x00" + struct.pack("<II", crc, (mebibytes * MIB) & 0xFFFFFFFF)


def gzip_bomb_length(decoded_size):
    """The wire size of `gzip_bomb(decoded_size)`, without making it."""
    blocks = gzip_bomb(decoded_size)
    header, block = next(blocks), next(blocks)
    return len(header) + len(block) * max(1, decoded_size // MIB) + 2 + 8


class HostileServer(http.server.ThreadingHTTPServer):
    """Daemon handler threads; `stopping` ends trickles and silences at shutdown."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address, mode, size, stats_file=None):
        super().__init__(address, HostileHandler)
        self.mode = mode
        self.size = size
        self.stats_file = stats_file
        self.stats_lock = threading.Lock()
        self.stats = {"bodies": 0, "streaming": 0, "largest": 0, "sent": []}
        if stats_file:
            write_atomically(stats_file, json.dumps(self.stats))
        self.stopping = threading.Event()
        self.base = f"http://{address[0]}:{self.server_address[1]}"

    def count(self, event, sent=0):
        """Records a hostile body's start, progress or end, and rewrites the stats file."""
        if not self.stats_file:
            return
        with self.stats_lock:
            if event == "start":
                self.stats["bodies"] += 1
                self.stats["streaming"] += 1
            elif event == "end":
                self.stats["streaming"] -= 1
                self.stats["sent"].append(sent)
            self.stats["largest"] = max(self.stats["largest"], sent)
            write_atomically(self.stats_file, json.dumps(self.stats))

    def handle_error(self, request, client_address):
        """A client that gives up mid-answer is the expected outcome here: stay silent."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class HostileHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: HostileServer

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def handle(self):
        if self.server.mode == "silent":
            # Keep the connection open, read nothing, answer nothing, until shutdown.
            self.server.stopping.wait()
            return
        super().handle()

    def do_GET(self):
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        path = self.path.split("?", 1)[0]
        parts = [part for part in path.split("/") if part]
        if self.server.mode.startswith("endless"):
            if path == "/index.json" or ENDLESS_FILE.match(path):
                kind = "image/png" if path.endswith(".png") else "audio/ogg" if path.endswith(".ogg") else "application/json"
                head = PNG_SIGNATURE if kind == "image/png" else b"OggS" if kind == "audio/ogg" else b"{"
                return self.send_endless(kind, head)
            if self.server.mode == "endless-files" and len(parts) == 4 and parts[2] == "pokemon" and parts[3] in ENDLESS_IDS:
                return self.send_json(self.endless_pokemon(int(parts[3])))
        if path == SPRITE_PATH:
            return self.send_sprite()
        if len(parts) == 3 and parts[:2] == ["api", "v2"] and parts[2] in KINDS:
            return self.send_json(self.listing(parts[2]))
        if len(parts) == 4 and parts[:2] == ["api", "v2"] and parts[2] in KINDS and parts[3] == "1":
            return self.send_document(parts[2])
        self.send_json({"detail": "Not found."}, status=404)

    def listing(self, kind):
        ids = range(1, len(ENDLESS_IDS) + 1) if kind == "pokemon" and self.server.mode == "endless-files" else [1]
        results = [{"name": f"{kind}-{n}", "url": f"{self.server.base}/api/v2/{kind}/{n}/"} for n in ids]
        return {"count": len(results), "next": None, "previous": None, "results": results}

    def endless_pokemon(self, number):
        return {"id": number, "name": f"pokemon-{number}",
                "sprites": {"front_default": UPSTREAM_SPRITE.replace("/1.png", f"/{number}.png")},
                "cries": {"latest": UPSTREAM_CRY.replace("/1.ogg", f"/{number}.ogg"), "legacy": None}}

    def send_json(self, value, status=200):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_document(self, kind):
        mode, size = self.server.mode, self.server.size
        if kind != "pokemon" or mode == "huge-sprite":
            document = {"id": 1, "name": f"{kind}-1"}
            if kind == "pokemon":
                document["sprites"] = {"front_default": UPSTREAM_SPRITE}
            return self.send_json(document)
        if mode == "endless":
            return self.send_endless("application/json; charset=utf-8", b'{"id": 1, "pad": "')
        if mode == "gzip-bomb":
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(gzip_bomb_length(size)))
            self.end_headers()
            for piece in gzip_bomb(size):
                self.wfile.write(piece)
        elif mode == "no-length":
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Connection", "close")
            self.end_headers()
            self.stream(b'{"id": 1, "pad": "', size)
        elif mode == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            for _ in range(size):
                self.wfile.write(b" ")
                self.wfile.flush()
                if self.server.stopping.wait(1.0):
                    return

    def send_endless(self, content_type, head):
        """A 200, chunked, that never ends: chunks of 64 KiB until the client goes away.

        The socket's send buffer is fixed at 128 KiB (autotuned, it grows to megabytes on
        loopback), so that what this server counts as written is what left for the client,
        not what sat in its own kernel queue.
        """
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 128 * 1024)
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        filler = head + b" " * (64 * 1024 - len(head))
        chunk = b"%x\r\n" % len(filler) + filler + b"\r\n"
        filler = b" " * (64 * 1024)
        later = b"%x\r\n" % len(filler) + filler + b"\r\n"
        sent, reported = 0, 0.0
        self.server.count("start")
        try:
            while not self.server.stopping.is_set():
                self.wfile.write(chunk)
                sent += len(chunk)
                chunk = later
                now = time.monotonic()
                if now - reported > 0.1:
                    reported = now
                    self.server.count("progress", sent)
        except OSError:
            pass
        finally:
            self.server.count("end", sent)

    def send_sprite(self):
        if self.server.mode != "huge-sprite":
            return self.send_json({"detail": "Not found."}, status=404)
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Connection", "close")
        self.end_headers()
        self.stream(PNG_SIGNATURE, self.server.size)

    def stream(self, head, size):
        """Sends `head`, then filler up to `size` bytes in all, from one reused block."""
        self.wfile.write(head)
        filler = b" " * (256 * 1024)
        left = size - len(head)
        while left > 0:
            piece = filler if left >= len(filler) else filler[:left]
            self.wfile.write(piece)
            left -= len(piece)


def write_atomically(path, text):
    """Write to a temporary name, then rename, so readers never see a partial file."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="hostile_server.py", description=__doc__.split("\n")[0])
    parser.add_argument("--mode", required=True, choices=sorted(DEFAULT_SIZES))
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    parser.add_argument("--pid-file", help="write this process's pid here once listening")
    parser.add_argument("--size", type=int, help="body size in bytes (decoded for gzip-bomb)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--tls-cert-dir", help="serve HTTPS with a self-signed certificate kept in this folder")
    parser.add_argument("--stats-file", help="count the bytes written of every hostile body here (JSON)")
    arguments = parser.parse_args(argv)
    size = arguments.size if arguments.size is not None else DEFAULT_SIZES[arguments.mode]
    try:
        server = HostileServer((arguments.host, arguments.port), arguments.mode, size, arguments.stats_file)
    except OSError as error:
        print(f"hostile_server.py: cannot listen on {arguments.host}:{arguments.port}: "
              f"{error.strerror or error}", file=sys.stderr)
        return 1

    if arguments.tls_cert_dir:
        import ssl
        from tls_server import make_certificate
        cert, key = make_certificate(arguments.tls_cert_dir, "IP:127.0.0.1,DNS:localhost")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.base = server.base.replace("http://", "https://")

    def request_stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    # A parent may start us with these blocked (Foundation's Process from a Swift concurrency thread).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    if arguments.pid_file:
        write_atomically(arguments.pid_file, f"{os.getpid()}\n")
    if arguments.port_file:
        write_atomically(arguments.port_file, f"{server.server_address[1]}\n")
    if not arguments.quiet:
        print(f"{arguments.mode}: listening on {server.base}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping.set()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
