"""A local Nightscout receiver implementing the API v1 entries contract the CareBridge tests need.

POST /api/v1/entries[.json]: a JSON array (or one object) of entries; the `api-secret` header must be the
SHA-1 hex of the secret read from --secret-file, else 401. Entries are upserted by (sysTime, type) as
cgm-remote-monitor's lib/server/entries.js does (sysTime from `dateString`, else `date`): a document sent again
replaces the stored one. GET /api/v1/entries[.json][?count=N]: the stored entries, newest `date` first.

Test control and records as test_receiver.py says (`script`, `ready`, `requests.jsonl` with
{"status": ..., "entries": [...identifiers...]}); the stored entries, in first-insert order, in `entries.json`.
"""

import datetime
import hashlib
import threading

import test_receiver

parser = test_receiver.parser(__doc__)
parser.add_argument("--secret-file", required=True)
args = parser.parse_args()
files = test_receiver.Files(args.dir)

with open(args.secret_file, encoding="utf-8") as f:
    DIGEST = hashlib.sha1(f.readline().strip().encode("utf-8")).hexdigest()

lock = threading.Lock()
entries = {}  # (sysTime, type) -> document, in first-insert order
ENTRIES = ("/api/v1/entries", "/api/v1/entries.json")


def sys_time(doc):
    if isinstance(doc.get("dateString"), str):
        moment = datetime.datetime.fromisoformat(doc["dateString"].replace("Z", "+00:00"))
    else:
        moment = datetime.datetime.fromtimestamp(doc["date"] / 1000, tz=datetime.timezone.utc)
    utc = moment.astimezone(datetime.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (utc.microsecond // 1000)


class Handler(test_receiver.Handler):
    def record(self, status, docs):
        files.record({"status": status, "entries": [d.get("identifier") for d in docs]})

    def do_POST(self):
        body = self.json_body([])
        docs = body if isinstance(body, list) else [body]
        with lock:
            scripted = files.next_scripted()
            if scripted:
                status, headers = self.scripted_status(scripted)
                self.record(status, docs)
                self.answer(status, {"status": status, "message": "scripted"}, headers)
                return
            if self.path.split("?")[0] not in ENTRIES:
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
            files.write_json("entries.json", list(entries.values()))
            self.record(200, docs)
            self.answer(200, docs)

    def do_GET(self):
        if self.path.split("?")[0] not in ENTRIES:
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


test_receiver.serve(files, args.port, Handler)
