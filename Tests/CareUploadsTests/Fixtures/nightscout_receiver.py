"""A local Nightscout receiver implementing the API v1 entries contract the CareBridge tests need.

POST /api/v1/entries[.json]: a JSON array (or one object) of entries; the `api-secret` header must be the
SHA-1 hex of the secret read from --secret-file, else 401. Entries are upserted by (sysTime, type) as
cgm-remote-monitor's lib/server/entries.js does (sysTime from `dateString`, else `date`): a document sent again
replaces the stored one. GET /api/v1/entries[.json][?count=N]: the stored entries, newest `date` first.

Test control, through files in --dir: `script` holds one answer per line for the next requests, consumed in
order before any other check (`503`, `429 2` = 429 with Retry-After: 2). The receiver writes `ready` (its port)
once it listens, `entries.json` (the stored entries, in first-insert order) and appends one line per request to
`requests.jsonl` ({"status": ..., "entries": [...identifiers...]}).
"""

import argparse
import datetime
import hashlib
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--dir", required=True)
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--secret-file", required=True)
args = parser.parse_args()

with open(args.secret_file, encoding="utf-8") as f:
    DIGEST = hashlib.sha1(f.readline().strip().encode("utf-8")).hexdigest()

lock = threading.Lock()
entries = {}  # (sysTime, type) -> document, in first-insert order


def path(name):
    return os.path.join(args.dir, name)


def sys_time(doc):
    if isinstance(doc.get("dateString"), str):
        moment = datetime.datetime.fromisoformat(doc["dateString"].replace("Z", "+00:00"))
    else:
        moment = datetime.datetime.fromtimestamp(doc["date"] / 1000, tz=datetime.timezone.utc)
    utc = moment.astimezone(datetime.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (utc.microsecond // 1000)


def next_scripted():
    try:
        with open(path("script"), encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        return None
    if not lines:
        return None
    with open(path("script.tmp"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines[1:]))
    os.replace(path("script.tmp"), path("script"))
    return lines[0].split()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def record(self, status, docs):
        with open(path("requests.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"status": status, "entries": [d.get("identifier") for d in docs]}) + "\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"[]")
        docs = body if isinstance(body, list) else [body]
        with lock:
            scripted = next_scripted()
            if scripted:
                status = int(scripted[0])
                headers = [("Retry-After", scripted[1])] if len(scripted) > 1 else []
                self.record(status, docs)
                self.answer(status, {"status": status, "message": "scripted"}, headers)
                return
            if self.path.split("?")[0] not in ("/api/v1/entries", "/api/v1/entries.json"):
                self.record(404, docs)
                self.answer(404, {"status": 404})
                return
            if self.headers.get("api-secret") != DIGEST:
                self.record(401, docs)
                self.answer(401, {"status": 401, "message": "Unauthorized"})
                return
            for doc in docs:
                doc["sysTime"] = sys_time(doc)
                entries[(doc["sysTime"], doc["type"])] = doc
            with open(path("entries.tmp"), "w", encoding="utf-8") as f:
                json.dump(list(entries.values()), f)
            os.replace(path("entries.tmp"), path("entries.json"))
            self.record(200, docs)
            self.answer(200, docs)

    def do_GET(self):
        if self.path.split("?")[0] not in ("/api/v1/entries", "/api/v1/entries.json"):
            self.answer(404, {"status": 404})
            return
        if self.headers.get("api-secret") != DIGEST:
            self.answer(401, {"status": 401, "message": "Unauthorized"})
            return
        count = 10
        if "count=" in self.path:
            count = int(self.path.split("count=")[1].split("&")[0])
        with lock:
            docs = sorted(entries.values(), key=lambda d: d["date"], reverse=True)[:count]
        self.answer(200, docs)


server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
with open(path("ready.tmp"), "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.replace(path("ready.tmp"), path("ready"))
server.serve_forever()
