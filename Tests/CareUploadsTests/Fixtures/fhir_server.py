"""A local FHIR R4 server with just what the CareBridge push tests need.

POST [base] with a transaction Bundle (Authorization: Bearer <the first line of --token-file>, else 401).
Entries are processed as FHIR's transaction rules say (http.html#trules): a conditional create
(`request.ifNoneExist: identifier=system|value`) answers 200 OK with the existing resource when one of that type
has that identifier, else creates it (201 Created); a conditional update (`PUT Type?identifier=system|value`)
replaces the match (200) or creates (201); `urn:uuid:` references inside the Bundle are rewritten to the ids the
entries resolved to. The answer is a transaction-response Bundle.

Test control, through files in --dir: `script` holds one answer per line for the next requests, consumed in
order before any other check (`503`, `429 2` = 429 with Retry-After: 2; `lost` = process the request but close
the connection without an answer, as a server that goes down after committing). The server writes `ready` once it
listens, `resources.json` (every stored resource, in creation order) and appends one line per request to
`requests.jsonl` ({"status": ..., "entries": [[method, identifier, status], ...]}). Its state is reloaded from
`resources.json` when it starts again (an outage loses nothing on the server's side).
"""

import argparse
import json
import os
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--dir", required=True)
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--token-file", required=True)
args = parser.parse_args()

with open(args.token_file, encoding="utf-8") as f:
    TOKEN = f.readline().strip()

lock = threading.Lock()


def path(name):
    return os.path.join(args.dir, name)


try:
    with open(path("resources.json"), encoding="utf-8") as f:
        resources = json.load(f)  # [{"type", "id", "resource"}]
except FileNotFoundError:
    resources = []


def save():
    with open(path("resources.tmp"), "w", encoding="utf-8") as f:
        json.dump(resources, f)
    os.replace(path("resources.tmp"), path("resources.json"))


def find(kind, criterion):
    """The stored resource of `kind` matching `identifier=system|value`, or None."""
    query = urllib.parse.parse_qs(criterion)
    system, _, value = query["identifier"][0].partition("|")
    for stored in resources:
        if stored["type"] != kind:
            continue
        for identifier in stored["resource"].get("identifier", []):
            if identifier.get("system") == system and identifier.get("value") == value:
                return stored
    return None


def rewrite(node, urls):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "reference" and isinstance(value, str) and value in urls:
                node[key] = urls[value]
            else:
                rewrite(value, urls)
    elif isinstance(node, list):
        for item in node:
            rewrite(item, urls)


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


def identifier_of(entry):
    request = entry.get("request", {})
    criterion = request.get("ifNoneExist") or request.get("url", "").partition("?")[2]
    return urllib.parse.parse_qs(criterion).get("identifier", [None])[0]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/fhir+json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def record(self, status, entries):
        with open(path("requests.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps({"status": status, "entries": entries}) + "\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        bundle = json.loads(self.rfile.read(length) or b"{}")
        entries = bundle.get("entry", [])
        with lock:
            scripted = next_scripted()
            lost = scripted == ["lost"]
            if scripted and not lost:
                status = int(scripted[0])
                headers = [("Retry-After", scripted[1])] if len(scripted) > 1 else []
                self.record(status, [[e["request"]["method"], identifier_of(e), None] for e in entries])
                self.answer(status, {"resourceType": "OperationOutcome", "issue": []}, headers)
                return
            if self.headers.get("Authorization") != "Bearer " + TOKEN:
                self.record(401, [])
                self.answer(401, {"resourceType": "OperationOutcome", "issue": []})
                return
            if bundle.get("resourceType") != "Bundle" or bundle.get("type") != "transaction":
                self.record(400, [])
                self.answer(400, {"resourceType": "OperationOutcome", "issue": []})
                return
            urls, outcomes, created = {}, [], []
            for entry in entries:
                request, resource = entry["request"], entry["resource"]
                kind = resource["resourceType"]
                if request["method"] == "POST":
                    match = find(kind, request["ifNoneExist"])
                else:  # PUT Type?identifier=…
                    match = find(kind, request["url"].partition("?")[2])
                    if match is not None:
                        resource["id"] = match["id"]
                        match["resource"] = resource
                        created.append(match)
                if match is None:
                    match = {"type": kind, "id": str(len(resources) + 1), "resource": resource}
                    resource["id"] = match["id"]
                    resources.append(match)
                    created.append(match)
                    status = "201 Created"
                else:
                    status = "200 OK"
                urls[entry["fullUrl"]] = kind + "/" + match["id"]
                outcomes.append((request["method"], identifier_of(entry), status, kind + "/" + match["id"]))
            for stored in created:
                rewrite(stored["resource"], urls)
            save()
            self.record(0 if lost else 200, [[m, i, s] for m, i, s, _ in outcomes])
            if lost:
                self.close_connection = True
                return
            self.answer(200, {
                "resourceType": "Bundle", "type": "transaction-response",
                "entry": [{"response": {"status": s, "location": l}} for _, _, s, l in outcomes],
            })


server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
with open(path("ready.tmp"), "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.replace(path("ready.tmp"), path("ready"))
server.serve_forever()
