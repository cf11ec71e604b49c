"""What the local test receivers of the upload tests (fhir_server.py, nightscout_receiver.py) share.

Both are an HTTP server on 127.0.0.1 controlled through files in their --dir: `script` holds one answer per line
for the next requests, consumed in order before any other check (`503`; `429 2` = 429 with Retry-After: 2; a
receiver may add words of its own); the receiver writes `ready` (its port) once it listens and appends one JSON line
per request to `requests.jsonl`. Tests/CareUploadsTests/TestReceiver.swift starts them and reads these files.
"""

import argparse
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def parser(description):
    """The options every receiver takes (--dir, --port); the receiver adds its own."""
    result = argparse.ArgumentParser(description=description)
    result.add_argument("--dir", required=True)
    result.add_argument("--port", type=int, default=0)
    return result


class Files:
    """The receiver's control and record files in its --dir."""

    def __init__(self, directory):
        self.directory = directory

    def path(self, name):
        return os.path.join(self.directory, name)

    def write_json(self, name, value):
        """Replaces `name` with `value` as JSON, atomically (a reader never sees half a file)."""
        with open(self.path(name + ".tmp"), "w", encoding="utf-8") as f:
            json.dump(value, f)
        os.replace(self.path(name + ".tmp"), self.path(name))

    def read_json(self, name, default):
        try:
            with open(self.path(name), encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return default

    def record(self, line):
        """Appends one request's record to `requests.jsonl`."""
        with open(self.path("requests.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")

    def next_scripted(self):
        """The next scripted answer as its words (`["429", "2"]`), consumed; None when nothing is scripted."""
        try:
            with open(self.path("script"), encoding="utf-8") as f:
                lines = [line.strip() for line in f if line.strip()]
        except FileNotFoundError:
            return None
        if not lines:
            return None
        with open(self.path("script.tmp"), "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines[1:]))
        os.replace(self.path("script.tmp"), self.path("script"))
        return lines[0].split()


class Handler(BaseHTTPRequestHandler):
    """A request handler that answers JSON and keeps quiet on standard error."""

    content_type = "application/json"

    def log_message(self, *_):
        pass

    def json_body(self, empty):
        length = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(length)
        return json.loads(data) if data else empty

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    @staticmethod
    def scripted_status(words):
        """A scripted `status [retry-after]` as the status and its headers."""
        return int(words[0]), [("Retry-After", words[1])] if len(words) > 1 else []


def serve(files, port, handler):
    """Listens on 127.0.0.1:`port` (any free port when 0), writes `ready` and serves until killed."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    with open(files.path("ready.tmp"), "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(files.path("ready.tmp"), files.path("ready"))
    server.serve_forever()
