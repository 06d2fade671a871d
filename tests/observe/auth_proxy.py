"""An authenticating reverse proxy for tests/observe/test_prometheus_fleet.sh, as a multi-tenant
Prometheus (Mimir, Cortex, a gateway in front of Prometheus) would stand:

    auth_proxy.py UPSTREAM_URL PORT_FILE

listens on 127.0.0.1, on a port the kernel picks, written to PORT_FILE once it listens. A GET or
POST is forwarded to UPSTREAM_URL (same path and query, same body) only when it carries both
`Authorization: Bearer s3cret-token` (or basic auth as rs:s3cret-pass) and `X-Scope-OrgID:
tenant-1`; otherwise the answer is 401
with a Prometheus-style JSON error body (and no forwarding). Prometheus' answer goes back as it is
(status, Content-Type, body). Nothing is logged: the token must not reach any output.

Runs until killed. Only the Python standard library (Debian's /usr/bin/python3).
"""

import base64
import os
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "s3cret-token"
BASIC = "Basic " + base64.b64encode(b"rs:s3cret-pass").decode()
TENANT = "tenant-1"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the test's output is its checks
        pass

    def send(self, status, content_type, data, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def refuse(self, why):
        body = ('{"status":"error","errorType":"unauthorized","error":"%s"}' % why).encode()
        self.send(401, "application/json", body,
                  [("WWW-Authenticate", 'Bearer realm="prometheus"')])

    def forward(self):
        if self.headers.get("Authorization") not in (f"Bearer {TOKEN}", BASIC):
            self.refuse("authentication required: a valid bearer token")
            return
        if self.headers.get("X-Scope-OrgID") != TENANT:
            self.refuse("no org id")
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        req = urllib.request.Request(self.server.upstream + self.path, data=body,
                                     method=self.command)
        if body is not None:
            req.add_header("Content-Type", self.headers.get("Content-Type",
                                                            "application/x-www-form-urlencoded"))
        try:
            with self.server.opener.open(req, timeout=60) as r:
                status, ctype, data = r.status, r.headers.get("Content-Type", ""), r.read()
        except urllib.error.HTTPError as e:  # Prometheus' 4xx and 5xx go back as they are
            status, ctype, data = e.code, e.headers.get("Content-Type", ""), e.read()
        except OSError as e:
            status, ctype = 502, "text/plain; charset=utf-8"
            data = f"auth_proxy: upstream {self.server.upstream}: {e}\n".encode()
        self.send(status, ctype, data)

    do_GET = forward
    do_POST = forward


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream):
        super().__init__(("127.0.0.1", 0), Handler)
        self.upstream = upstream.rstrip("/")
        # Straight to 127.0.0.1, never through a proxy the environment names.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def main():
    upstream, port_file = sys.argv[1], sys.argv[2]
    server = Server(upstream)
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{server.server_address[1]}\n")
    os.replace(tmp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
