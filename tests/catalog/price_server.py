#!/usr/bin/env python3
"""Replays recorded price-list answers on 127.0.0.1 for tests/catalog/test_refresh.sh.

    price_server.py DIR PORT_FILE

Serves DIR's recordings (tests/data/prices/, sources in its SOURCES.md) at
http://127.0.0.1:PORT/<mode>/..., the port written to PORT_FILE once listening. The first path
segment picks what the server does, the rest is the provider's own path:

  ok         Azure: /api/retail/prices answers azure-page-1.json, whose NextPageLink is
             rewritten to this server and mode, then azure-page-2.json (?$skip=...);
             AWS: /offers/v1.0/aws/AmazonEC2/current/<region>/index.csv answers aws-offer.csv
  throttle   the first request of each path answers 429 with Retry-After: 1, then as ok
  error500   HTTP 500 with a short text body, always
  truncated  the answer's first half, with the whole answer's Content-Length, then the
             connection is closed
  renamed    the answer with a field renamed: retailPrice -> retail_price (Azure),
             the PricePerUnit column -> Price Per Unit (AWS)
  hang       reads the request and never answers
  garbage    HTTP 200 with an HTML page
  loop       Azure's NextPageLink points to the page itself
"""

import http.server
import os
import socketserver
import sys
import threading
import time
import urllib.parse

DIR = sys.argv[1]
PORT_FILE = sys.argv[2]
seen = set()
lock = threading.Lock()


def recording(name):
    with open(os.path.join(DIR, name), "rb") as f:
        return f.read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def answer(self, mode, path, query):
        base = "http://127.0.0.1:%d/%s" % (self.server.server_address[1], mode)
        if path == "/api/retail/prices":
            if "$skip" in query:
                return recording("azure-page-2.json"), "application/json"
            body = recording("azure-page-1.json")
            if mode == "loop":
                nxt = "http://127.0.0.1:%d%s" % (self.server.server_address[1], self.path)
            else:
                nxt = base + "/api/retail/prices?api-version=2023-01-01-preview&$skip=100"
            body = body.replace(b"__NEXT_PAGE__", nxt.encode())
            if mode == "renamed":
                body = body.replace(b'"retailPrice"', b'"retail_price"')
            return body, "application/json"
        if path.startswith("/offers/v1.0/aws/AmazonEC2/current/") and path.endswith("/index.csv"):
            body = recording("aws-offer.csv")
            if mode == "renamed":
                body = body.replace(b'"PricePerUnit"', b'"Price Per Unit"', 1)
            return body, "text/csv"
        return None, None

    def do_GET(self):
        parts = self.path.split("?", 1)
        segments = parts[0].split("/", 2)  # "", mode, rest
        mode = segments[1] if len(segments) > 1 else ""
        path = "/" + segments[2] if len(segments) > 2 else "/"
        query = urllib.parse.unquote(parts[1]) if len(parts) > 1 else ""
        if mode == "hang":
            time.sleep(3600)
            return
        if mode == "error500":
            return self.send(500, b"upstream price service failed\n", "text/plain")
        if mode == "garbage":
            return self.send(200, b"<html><body>Sign in</body></html>", "text/html")
        if mode == "throttle":
            with lock:
                first = path not in seen
                seen.add(path)
            if first:
                return self.send(429, b'{"Error": "Too many requests"}', headers=[("Retry-After", "1")])
        body, content_type = self.answer(mode, path, query)
        if body is None:
            return self.send(404, b"not found\n", "text/plain")
        if mode == "truncated":
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send(200, body, content_type)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
