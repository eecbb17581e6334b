#!/usr/bin/env python3
"""A local stand-in for pokeapi.co (REST v2) and the sprites and cries host, serving an api-data folder.

    python3 Tests/Support/pokeapi_server.py --root DIR [--host 127.0.0.1] [--port 0]
        [--port-file FILE] [--pid-file FILE] [--latency-ms N]
        [--fault-rate F] [--faults 500,503,429,reset,truncate] [--seed N]
        [--deploy-hash STR] [--sprite-salt STR] [--sprite-salt-glob GLOB]
        [--sprite-missing GLOB] [--file-host-fault MODE] [--file-host-fault-tree TREE]
        [--document-fault MODE]
        [--pregzip] [--quiet]
        [--url-base http://HOST:PORT] [--no-validators] [--no-gzip] [--chunked-gzip]
        [--proxy-deploy-hash STR]
        [--then-root DIR] [--then-deploy-hash STR] [--then-proxy-deploy-hash STR] [--stall-after N]

Documents: GET /api/v2/{kind}/{id or name}/ (minified, absolute URLs).
Lists:     GET /api/v2/{kind}/?limit=L&offset=O (default limit 20, limit=0 means 20).
Sprites:   GET /PokeAPI/sprites/master/sprites/<path>.png|.gif|.svg (generated images).
Cries:     GET /PokeAPI/cries/main/cries/<path>.ogg (generated Ogg streams, audio/ogg); the
           --sprite-salt, --sprite-salt-glob and --sprite-missing globs apply to their paths
           below cries/ as to sprites' below sprites/.
Stats:     GET /_stats -> {"requests", "by_path", "status", "body_bytes", "faults", "fault_kinds",
           "connections"} (connections accepted),
           POST /_stats/reset zeroes them. Stats requests are neither counted nor delayed.
File host: --file-host-fault 404|500|500-but-missing|html|drip|endless|bad-gzip|placeholder turns every sprite
           and cry request (--file-host-fault-tree sprites|cries|all) bad that way: a file host's bad night;
           fail-70 answers 500 for the same 70% of the paths every time and serves the rest, slow
           serves every file after 0.4 s.
Documents: --document-fault silent|500|bad-gzip answers the root and the lists, then every
           document request (/api/v2/{kind}/{id}/...) the same bad way: `silent` holds it open
           and sends nothing until the client goes away, `500` answers 500, `bad-gzip` a 200
           whose `Content-Encoding: gzip` is over the plain JSON (a source gone bad after its lists).
Faults:    --fault-rate F fails API and sprite requests (not 301s) with probability F, choosing
           among --faults; 500/503/429 and truncate/reset (which count as status 200) close the
           connection. truncate always sends the identity body, so a client sees a short 200.
Self-hosted PokeAPI (its stock Django server, behind a proxy that does not pass Host):
           --url-base writes absolute URLs (documents, list `url`s and `next`) on another origin
           than the one listened on; --no-validators sends no ETag, Last-Modified nor
           X-PokeAPI-Hash and never answers 304; --no-gzip ignores Accept-Encoding;
           --proxy-deploy-hash sends X-PokeAPI-Hash STR on every API answer all the same, as a
           reverse proxy's add_header does.
Snapshots: --then-root loads a second api-data folder that POST /_switch serves from then on
           (with --then-deploy-hash as its X-PokeAPI-Hash, by default its own; with
           --then-proxy-deploy-hash replacing --proxy-deploy-hash); --stall-after N answers N
           document requests, then holds every further one open, sending nothing, until
           POST /_switch answers them (/_stats "stalled" counts them): upstream deploying
           while a sync runs, or between a killed sync and the next, without timing.
Static server: --chunked-gzip sends gzip bodies chunked, without Content-Length, as nginx's
           gzip filter does (an api-data tree served by nginx, like pokeapi.co's static deploy).
Python 3 standard library only. Exits 2 when --root is not an api-data folder.
"""

import argparse
import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import standin_data  # noqa: E402
from standin_handler import StandInHandler, StandInServer  # noqa: E402
from standin_switch import SnapshotSwitch  # noqa: E402

FAULT_KINDS = ("500", "503", "429", "reset", "truncate")


class FaultInjector:
    """Decides, thread-safely and reproducibly from a seed, which requests fail and how."""

    def __init__(self, rate, kinds, seed):
        self.rate = rate
        self.kinds = kinds
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def draw(self):
        """A fault kind for this request, or None to answer normally."""
        if self.rate <= 0 or not self.kinds:
            return None
        with self._lock:
            if self._random.random() >= self.rate:
                return None
            return self._random.choice(self.kinds)


class Stats:
    """Request counters behind /_stats, shared by all handler threads."""

    def __init__(self):
        self._lock = threading.Lock()
        self.reset()

    def reset(self):
        with self._lock:
            self._requests = 0
            self._by_path = {}
            self._status = {}
            self._body_bytes = 0
            self._faults = 0
            self._fault_kinds = {}
            self._connections = 0

    def record_connection(self):
        with self._lock:
            self._connections += 1

    def record_request(self, path):
        with self._lock:
            self._requests += 1
            self._by_path[path] = self._by_path.get(path, 0) + 1

    def record_response(self, status, body_bytes, fault=None):
        with self._lock:
            key = str(status)
            self._status[key] = self._status.get(key, 0) + 1
            self._body_bytes += body_bytes
            if fault is not None:
                self._faults += 1
                self._fault_kinds[fault] = self._fault_kinds.get(fault, 0) + 1

    def snapshot(self):
        with self._lock:
            return {"requests": self._requests, "by_path": dict(self._by_path),
                    "status": dict(self._status), "body_bytes": self._body_bytes,
                    "faults": self._faults, "fault_kinds": dict(self._fault_kinds),
                    "connections": self._connections}


def _write_atomically(path, text):
    """Write to a temporary name, then rename, so readers never see a partial file."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)


def _fault_list(text):
    kinds = [kind.strip() for kind in text.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in FAULT_KINDS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown fault kind(s) {','.join(unknown)}; "
                                         f"choose among {','.join(FAULT_KINDS)}")
    return kinds


def _rate(text):
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="pokeapi_server.py",
        description="Serve a PokeAPI api-data folder on a local address, the way pokeapi.co does.")
    parser.add_argument("--root", required=True, help="api-data folder (holding api/v2/{kind}/index.json)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    parser.add_argument("--pid-file", help="write this process's pid here once listening")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="sleep before every answer")
    parser.add_argument("--fault-rate", type=_rate, default=0.0, help="probability a request fails")
    parser.add_argument("--faults", type=_fault_list, default=list(FAULT_KINDS),
                        help="fault kinds to choose among: 500,503,429,reset,truncate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault dice (default 0)")
    parser.add_argument("--deploy-hash", help="X-PokeAPI-Hash value (default: from the index files)")
    parser.add_argument("--sprite-salt", default="", help="salt mixed into generated sprite bytes")
    parser.add_argument("--sprite-salt-glob", default="*",
                        help="sprite paths (below sprites/) the salt applies to; comma-separated globs")
    parser.add_argument("--sprite-missing", default="",
                        help="sprite paths (below sprites/) answered 404; comma-separated globs")
    parser.add_argument("--file-host-fault", choices=["404", "500", "500-but-missing", "html", "drip", "endless", "bad-gzip",
                                                      "fail-70", "slow", "placeholder"],
                        help="answer every sprite and cry request (see --file-host-fault-tree) this way: "
                             "404; 500; 500-but-missing (404 for the paths --sprite-missing names, 500 for "
                             "the others: a host that keeps its 404s); html (200 text/html error page); drip "
                             "(the file's header, then one byte a second); endless (200 chunked, never "
                             "finished: 48 MB, then a close); bad-gzip (200, Content-Encoding: gzip over the plain bytes); "
                             "fail-70 (500 for the same 70%% of the paths every time, the others served); slow "
                             "(every file served after 0.4 s); placeholder (one valid PNG for every path)")
    parser.add_argument("--document-fault", choices=["silent", "500", "bad-gzip"],
                        help="answer every document request (not the root nor the lists) this bad way")
    parser.add_argument("--file-host-fault-tree", choices=["sprites", "cries", "all"], default="all",
                        help="which tree --file-host-fault applies to (default all)")
    parser.add_argument("--pregzip", action="store_true",
                        help="gzip every document at start, so answers come from memory (benchmarks)")
    parser.add_argument("--url-base",
                        help="origin written in absolute URLs instead of the listening one, e.g. "
                             "http://internal:8000 (a server behind a proxy that does not pass Host)")
    parser.add_argument("--no-validators", action="store_true",
                        help="send no ETag, Last-Modified nor X-PokeAPI-Hash, never 304 (stock self-hosted PokeAPI)")
    parser.add_argument("--no-gzip", action="store_true", help="never gzip answers (no GZipMiddleware)")
    parser.add_argument("--proxy-deploy-hash",
                        help="X-PokeAPI-Hash on every API answer, even with --no-validators (a proxy's add_header)")
    parser.add_argument("--chunked-gzip", action="store_true",
                        help="send gzip bodies chunked, without Content-Length (as nginx's gzip filter does)")
    parser.add_argument("--then-root", help="a second api-data folder, served from POST /_switch on")
    parser.add_argument("--then-deploy-hash", help="X-PokeAPI-Hash of --then-root (default: from its index files)")
    parser.add_argument("--then-proxy-deploy-hash", help="--proxy-deploy-hash from POST /_switch on")
    parser.add_argument("--stall-after", type=int,
                        help="answer this many document requests, then hold the others until POST /_switch")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return parser.parse_args(argv)


def main(argv=None):
    arguments = parse_arguments(argv)
    started = time.monotonic()
    try:
        server = StandInServer((arguments.host, arguments.port), StandInHandler)
    except OSError as error:
        print(f"pokeapi_server.py: cannot listen on {arguments.host}:{arguments.port}: "
              f"{error.strerror or error}", file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    base = f"http://{host}:{port}"
    written_base = (arguments.url_base or base).rstrip("/")
    try:
        server.data = standin_data.ApiData(arguments.root, written_base, arguments.deploy_hash,
                                           pregzip=arguments.pregzip)
        then_data = standin_data.ApiData(arguments.then_root, written_base, arguments.then_deploy_hash) \
            if arguments.then_root else None
    except standin_data.NotApiData as error:
        print(f"pokeapi_server.py: error: {error}", file=sys.stderr)
        server.server_close()
        return 2
    server.base = written_base
    server.validators = not arguments.no_validators
    server.gzip = not arguments.no_gzip
    server.chunked_gzip = arguments.chunked_gzip
    server.proxy_deploy_hash = arguments.proxy_deploy_hash
    server.latency = arguments.latency_ms / 1000.0
    server.faults = FaultInjector(arguments.fault_rate, arguments.faults, arguments.seed)
    server.stats = Stats()
    server.sprite_salt = arguments.sprite_salt
    server.sprite_salt_glob = arguments.sprite_salt_glob
    server.sprite_missing = arguments.sprite_missing
    server.file_host_fault = arguments.file_host_fault
    server.file_host_fault_tree = arguments.file_host_fault_tree
    server.document_fault = arguments.document_fault
    server.switch = SnapshotSwitch(then_data, arguments.then_proxy_deploy_hash, arguments.stall_after) \
        if then_data is not None or arguments.stall_after is not None else None

    def request_stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    # A parent may start us with these blocked (Foundation's Process inherits the mask of
    # a Swift concurrency thread); blocked, SIGTERM would never stop the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    if arguments.pid_file:
        _write_atomically(arguments.pid_file, f"{os.getpid()}\n")
    if arguments.port_file:
        _write_atomically(arguments.port_file, f"{port}\n")
    if not arguments.quiet:
        print(f"loaded {server.data.document_count} documents from {arguments.root} "
              f"in {time.monotonic() - started:.1f} s", flush=True)
        print(f"listening on {base}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
