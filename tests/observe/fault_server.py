"""A Prometheus that fails, for tests/observe/test_faults.sh:

    fault_server.py PORT_FILE

listens on 127.0.0.1 on a port the kernel picks (written to PORT_FILE once it listens). The first
path segment picks the fault; the rest is what rightsize asked (`/stall/api/v1/query`):

    stall     200 with a Content-Length of 1 MB, 16 bytes of it, then nothing (the connection held)
    reset     the connection closed with a TCP reset before any answer
    throttle  429 with Retry-After: 1, every time
    huge      200 declaring a 2 GiB body (Content-Length 2147483649)
    flood     200 with no length, bytes sent until the client hangs up (more than 2 GiB if it never does)
    loop      302 to the same URL, every time

Counts the requests of each fault in PORT_FILE.requests (one line per request: the fault's name).
Only the Python standard library (Debian's /usr/bin/python3). Runs until killed.
"""

import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_one(self):
        fault = self.path.lstrip("/").split("/", 1)[0]
        with self.server.lock:
            with open(self.server.log, "a") as f:
                f.write(fault + "\n")
        if fault == "stall":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            self.wfile.write(b'{"status":"succ')
            self.wfile.flush()
            time.sleep(3600)
        elif fault == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif fault == "throttle":
            body = b'{"status":"error","errorType":"too_many_requests","error":"slow down"}'
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif fault == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(2 * 1024**3 + 1))
            self.end_headers()
            self.wfile.write(b'{"status":"success","data":{"resultType":"vector","result":[')
            self.close_connection = True
        elif fault == "flood":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b" " * (1 << 20)
            self.wfile.write(b'{"status":"success","data":{"resultType":"vector","result":[')
            try:
                for _ in range(2049):  # 2 GiB and a little more
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
        elif fault == "loop":
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_GET = handle_one
    do_POST = handle_one


class Server(ThreadingHTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.lock = threading.Lock()
    server.log = sys.argv[1] + ".requests"
    open(server.log, "w").close()
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
