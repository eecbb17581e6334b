#!/usr/bin/env python3
"""A small HTTP server for the HTTP client tests (stdlib only, loopback only).

Every request (except /_log) is recorded with its arrival time and headers;
GET /_log returns that record as JSON, so tests can check what reached the
server and when. The server writes its own pid file, because `python3` may be
a pyenv shim whose pid is not the server's.

Endpoints:
  /ok                    200 JSON with Content-Length
  /gzip                  200 JSON, gzip-encoded when the client accepts gzip
  /headers               200 JSON echo of the request headers
  /redirect-same         301 to /redirect-same/ (PokeAPI's missing-slash redirect)
  /redirect-same/        200 JSON
  /redirect-foreign[/...]?to=U  302 to U (any path below it: the updater asks for .../index.json)
  /redirect-loop/N       302 to /redirect-loop/N+1, forever
  /flaky/N/KEY           503 for the first N requests of this path, then 200 JSON
  /429/KEY               429 with Retry-After: 1 for the first request of this path, then 200
  /status/N              an empty response with status N
  /big?size=N&length=0|1 N bytes of JSON-ish data, with or without Content-Length
  /truncated             200, no Content-Length, half a JSON document, then close
  /reset                 200 with Content-Length, a few bytes, then a TCP reset
  /slow?seconds=S        sends nothing for S seconds (notes if the client went away)
  /404                   404 JSON
  /304                   200 with ETag "v1", or 304 when If-None-Match matches
"""
import argparse
import gzip
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
LOG = []          # one dict per request, in arrival order
COUNTS = {}       # path -> requests seen, for /flaky and /429
OK_BODY = json.dumps({"ok": True, "name": "pikachu", "id": 25}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Without TCP_NODELAY keep-alive responses stall about 40 ms each.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format, *args):
        pass

    def send_body(self, status, body, content_type="application/json", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def record(self, path):
        entry = {"path": path, "time": time.time(),
                 "headers": {k.lower(): v for k, v in self.headers.items()}}
        with LOCK:
            LOG.append(entry)
            COUNTS[path] = COUNTS.get(path, 0) + 1
            return entry, COUNTS[path]

    def do_GET(self):
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if path == "/_log":
            with LOCK:
                body = json.dumps(LOG).encode()
            return self.send_body(200, body)
        entry, count = self.record(self.path)
        segments = path.strip("/").split("/")
        if path in ("/ok", "/redirect-same/"):
            self.send_body(200, OK_BODY)
        elif path == "/headers":
            self.send_body(200, json.dumps(entry["headers"]).encode())
        elif path == "/gzip":
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                self.send_body(200, gzip.compress(OK_BODY), extra={"Content-Encoding": "gzip"})
            else:
                self.send_body(200, OK_BODY)
        elif path == "/redirect-same":
            self.send_body(301, b"", extra={"Location": "/redirect-same/"})
        elif segments[0] == "redirect-foreign":
            self.send_body(302, b"", extra={"Location": query["to"][0]})
        elif segments[0] == "redirect-loop":
            self.send_body(302, b"", extra={"Location": "/redirect-loop/%d" % (int(segments[1]) + 1)})
        elif segments[0] == "flaky":
            if count <= int(segments[1]):
                self.send_body(503, b'{"error":"unavailable"}')
            else:
                self.send_body(200, OK_BODY)
        elif segments[0] == "429":
            if count == 1:
                self.send_body(429, b'{"error":"slow down"}', extra={"Retry-After": "1"})
            else:
                self.send_body(200, OK_BODY)
        elif segments[0] == "status":
            self.send_body(int(segments[1]), b"")
        elif path == "/big":
            self.big(int(query["size"][0]), query.get("length", ["1"])[0] == "1")
        elif path == "/truncated":
            self.close_delimited(OK_BODY[: len(OK_BODY) // 2])
        elif path == "/short":
            self.short()
        elif path == "/reset":
            self.reset()
        elif path == "/slow":
            self.slow(entry, float(query.get("seconds", ["3"])[0]))
        elif path == "/404":
            self.send_body(404, b'{"detail":"Not found."}')
        elif path == "/304":
            if self.headers.get("If-None-Match") == '"v1"':
                self.send_response(304)
                self.send_header("ETag", '"v1"')
                self.end_headers()
            else:
                self.send_body(200, OK_BODY, extra={"ETag": '"v1"'})
        else:
            self.send_body(404, b'{"detail":"Not found."}')

    def close_delimited(self, body):
        # HTTP/1.1 without Content-Length or chunking: the body ends when the connection closes.
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def big(self, size, with_length):
        chunk = b"x" * 65536
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if with_length:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        sent = 0
        try:
            while sent < size:
                piece = chunk[: min(len(chunk), size - sent)]
                self.wfile.write(piece)
                sent += len(piece)
        except OSError:
            pass  # the client refused the rest

    def short(self):
        # A Content-Length of 1000, 11 bytes of body, then a clean close: libcurl's
        # "transfer closed with 989 bytes remaining to read" (URLError -1).
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b'{"partial":')
        self.close_connection = True

    def reset(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b'{"partial":')
        self.wfile.flush()
        # SO_LINGER with a zero timeout turns close() into a TCP reset.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def slow(self, entry, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                with LOCK:
                    entry["aborted"] = True  # the client closed the connection
                self.close_connection = True
                return
        self.send_body(200, OK_BODY)


class QuietServer(ThreadingHTTPServer):
    """Clients here hang up on purpose (cancellation, body caps): not worth a traceback."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--pid-file", required=True)
    args = parser.parse_args()
    # A process started from a Swift test inherits the spawning thread's signal
    # mask, with SIGTERM blocked: unblock everything so that kill works.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not args.bind.startswith("127."):
        raise SystemExit("loopback addresses only")
    QuietServer.request_queue_size = 1024
    QuietServer.daemon_threads = True
    server = QuietServer((args.bind, args.port), Handler)
    with open(args.pid_file + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(args.pid_file + ".tmp", args.pid_file)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
