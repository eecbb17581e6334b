#!/usr/bin/env python3
"""A bundles folder served over HTTP on 127.0.0.1, with per-file misbehaviour, for the
updater's tests (stdlib only).

    python3 Tests/Support/bundle_server.py --root DIR --rules RULES.json \
        --port-file F --pid-file F [--log LOG]

RULES.json (re-read on every request, so a test can change it while the server runs)
maps a request path ("/index.json") to one rule:
    {"status": 404}                    answer with that status
    {"trickle": true}                  announce the size, send 20 bytes every 2 s
    {"gzip_bomb": N}                   Content-Encoding: gzip of N zero bytes (made once; GET
                                       /__warm?gzip_bomb=N makes it ahead of a timed request)
    {"redirect": "URL"}                302 to URL
    {"cut": N}                         announce the full size, send N bytes, close
index.json gets an ETag (its SHA-256) and a 304 for a matching If-None-Match.
Every request is logged to LOG as "PATH<TAB>IF-NONE-MATCH".
"""
import argparse
import hashlib
import http.server
import json
import os
import socketserver
import sys
import time
import zlib


BOMBS = {}


def gzip_bomb_body(size):
    """One gzip stream of `size` zero bytes (whole MiB), made once per size and kept.

    A single deflate stream at level 9 (about 1 KB per MiB): unlike a stream of flushed
    blocks, a few MB of it waiting in a socket decode to gigabytes in one read.
    """
    if size not in BOMBS:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        zeros = bytes(1 << 20)
        BOMBS[size] = b"".join(compressor.compress(zeros) for _ in range(max(1, size >> 20))) + compressor.flush()
    return BOMBS[size]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002
        pass

    def rules(self):
        try:
            with open(self.server.rules_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def do_GET(self):
        path = self.path.split("?")[0]
        if self.server.log_path:
            with open(self.server.log_path, "a") as f:
                f.write(f"{path}\t{self.headers.get('If-None-Match', '')}\t{self.headers.get('User-Agent', '')}\n")
        rule = self.rules().get(path, {})
        if "status" in rule:
            self.send_response(rule["status"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "redirect" in rule:
            self.send_response(302)
            self.send_header("Location", rule["redirect"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/__warm":
            # Makes the bomb of ?gzip_bomb=N now, so that a test times the client only.
            gzip_bomb_body(int(self.path.split("gzip_bomb=")[1]))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "gzip_bomb" in rule:
            body = gzip_bomb_body(rule["gzip_bomb"])
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        file = os.path.join(self.server.root, path.lstrip("/"))
        if not os.path.isfile(file):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(file, "rb") as f:
            body = f.read()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        if path.endswith("index.json") and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.end_headers()
        try:
            if rule.get("trickle"):
                for start in range(0, len(body), 20):
                    self.wfile.write(body[start:start + 20])
                    self.wfile.flush()
                    time.sleep(2)
            elif "cut" in rule:
                self.wfile.write(body[:rule["cut"]])
                self.wfile.flush()
                self.close_connection = True
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--rules", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--pid-file", required=True)
    parser.add_argument("--log")
    arguments = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.root, server.rules_path, server.log_path = arguments.root, arguments.rules, arguments.log
    for path, text in ((arguments.pid_file, str(os.getpid())), (arguments.port_file, str(server.server_address[1]))):
        with open(path + ".part", "w") as f:
            f.write(text)
        os.rename(path + ".part", path)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
