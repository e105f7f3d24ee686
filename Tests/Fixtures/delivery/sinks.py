"""Receivers for the delivery tests: what `liftbase deliver` sends, written to files.

    python3 sinks.py smtp FOLDER   # an SMTP server (aiosmtpd): each mail to FOLDER/mail-N.eml
    python3 sinks.py http FOLDER   # an HTTP server: each request to FOLDER/request-N.json

Each binds a free port on 127.0.0.1 and prints `ready PORT` once it listens. The HTTP
server answers by path: /ok 204, /fail 500, /redirect 302 to /ok, /slow writes the request
down, then waits 5 s before its 204 (time for a test to kill the worker mid-delivery).
"""
import asyncio
import http.server
import itertools
import json
import os
import socket
import sys
import threading
import time

counter = itertools.count(1)
lock = threading.Lock()


def write(folder, prefix, suffix, data):
    with lock:
        path = os.path.join(folder, f"{prefix}-{next(counter)}{suffix}")
    with open(path + ".part", "wb") as file:
        file.write(data)
    os.rename(path + ".part", path)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def smtp(folder):
    from aiosmtpd.controller import Controller

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            write(folder, "mail", ".eml", envelope.content)
            return "250 OK"

    port = free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    print(f"ready {port}", flush=True)
    while True:
        time.sleep(3600)


def http_server(folder):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            record = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                      "body": body.decode("utf-8")}
            write(folder, "request", ".json", json.dumps(record).encode("utf-8"))
            if self.path == "/slow":
                time.sleep(5)
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", "/ok")
            else:
                self.send_response(500 if self.path == "/fail" else 204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"ready {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    kind, folder = sys.argv[1], sys.argv[2]
    smtp(folder) if kind == "smtp" else http_server(folder)
