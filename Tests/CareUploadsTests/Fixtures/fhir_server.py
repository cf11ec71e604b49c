"""A local FHIR R4 server with just what the CareBridge push tests need.

POST [base] with a transaction Bundle, authorised by `Authorization: Bearer <token>`: the first line of
--token-file, or an access token this server issued and that has not expired; else 401. Entries are processed as
FHIR's transaction rules say (http.html#trules): a conditional create (`request.ifNoneExist:
identifier=system|value`) answers 200 OK with the existing resource when one of that type has that identifier, else
creates it (201 Created); a conditional update (`PUT Type?identifier=system|value`) replaces the match (200) or
creates (201); `urn:uuid:` references inside the Bundle are rewritten to the ids the entries resolved to. The answer
is a transaction-response Bundle.

SMART Backend Services (hl7.org/fhir/smart-app-launch/backend-services.html), with --smart-client-id and
--smart-public-key (a PEM public key, or a JWK set as `carebridge fhir smart-jwks` prints it): GET
[base]/.well-known/smart-configuration names the token endpoint, POST /auth/token takes a client-credentials grant
with a signed JWT assertion and verifies it: ES384 or RS384 signed with the registered public key, `kid` in the
header (with a JWK set: the key of that `kid`, whose `alg` is the header's, and only public parameters in the set), iss = sub = the client id, aud = the token endpoint's URL, exp at most 5 minutes
ahead, a jti not seen before. It answers an access token valid for --token-lifetime seconds, or 400/401
`invalid_client`/`invalid_grant`; every token request is recorded in `tokens.jsonl` ({"status", "error"}).

Test control and records as test_receiver.py says, and: `lost` in the script processes the request but closes the
connection without an answer (a server that goes down after committing); `expire` expires every access token issued
so far and then handles the request. `requests.jsonl` lines are {"status": ..., "entries": [[method, identifier,
status], ...]}; `resources.json` holds every stored resource in creation order, reloaded when the server starts again
(an outage loses nothing on the server's side).
"""

import json
import secrets
import threading
import time
import urllib.parse

import test_receiver

parser = test_receiver.parser(__doc__)
parser.add_argument("--token-file")
parser.add_argument("--smart-client-id")
parser.add_argument("--smart-public-key")
parser.add_argument("--token-lifetime", type=int, default=300)
args = parser.parse_args()
files = test_receiver.Files(args.dir)

TOKEN = None
if args.token_file:
    with open(args.token_file, encoding="utf-8") as f:
        TOKEN = f.readline().strip()
PUBLIC_KEY = None
if args.smart_public_key:
    with open(args.smart_public_key, encoding="utf-8") as f:
        PUBLIC_KEY = f.read()

lock = threading.Lock()
resources = files.read_json("resources.json", [])  # [{"type", "id", "resource"}]
issued = {}  # access token -> expiry (time.time())
seen_jti = set()
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def save():
    files.write_json("resources.json", resources)


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


def identifier_of(entry):
    request = entry.get("request", {})
    criterion = request.get("ifNoneExist") or request.get("url", "").partition("?")[2]
    return urllib.parse.parse_qs(criterion).get("identifier", [None])[0]


def authorized(header):
    """Whether `Authorization: header` carries the token file's token or a live access token of ours."""
    if not header or not header.startswith("Bearer "):
        return False
    token = header[len("Bearer "):]
    if TOKEN is not None and token == TOKEN:
        return True
    return issued.get(token, 0) > time.time()


def verify_assertion(form, token_url):
    """None when the client-credentials grant in `form` is good, else (status, error, why)."""
    import jwt  # python3-jwt (with python3-cryptography for ES384/RS384), only where SMART is tested

    if form.get("grant_type") != ["client_credentials"]:
        return 400, "unsupported_grant_type", "grant_type"
    if form.get("client_assertion_type") != [ASSERTION_TYPE] or not form.get("scope"):
        return 400, "invalid_request", "client_assertion_type or scope"
    assertion = form.get("client_assertion", [""])[0]
    try:
        header = jwt.get_unverified_header(assertion)
        if header.get("alg") not in ("ES384", "RS384") or not header.get("kid") or header.get("typ") != "JWT":
            return 401, "invalid_client", "header %s" % header
        key = PUBLIC_KEY
        if PUBLIC_KEY.lstrip().startswith("{"):
            keys = json.loads(PUBLIC_KEY)["keys"]
            if any(set(k) & {"d", "p", "q", "dp", "dq", "qi"} for k in keys):
                return 401, "invalid_client", "private parameters in the registered JWK set"
            match = [k for k in keys if k.get("kid") == header["kid"]]
            if len(match) != 1 or match[0].get("alg") != header["alg"]:
                return 401, "invalid_client", "no registered key with kid %s for %s" % (header["kid"], header["alg"])
            key = jwt.PyJWK.from_dict(match[0]).key
        claims = jwt.decode(
            assertion, key, algorithms=["ES384", "RS384"], audience=token_url,
            options={"require": ["iss", "sub", "aud", "exp", "jti"]},
        )
    except jwt.InvalidTokenError as error:
        return 401, "invalid_client", str(error)
    if claims["iss"] != args.smart_client_id or claims["sub"] != args.smart_client_id:
        return 401, "invalid_client", "iss/sub"
    if claims["exp"] > time.time() + 300:
        return 400, "invalid_grant", "exp more than 5 minutes ahead"
    if claims["jti"] in seen_jti:
        return 400, "invalid_grant", "jti used before"
    seen_jti.add(claims["jti"])
    return None


class Handler(test_receiver.Handler):
    content_type = "application/fhir+json"

    def record(self, status, entries):
        files.record({"status": status, "entries": entries})

    def token_url(self):
        return "http://127.0.0.1:%d/auth/token" % self.server.server_address[1]

    def do_GET(self):
        if PUBLIC_KEY and self.path.endswith("/.well-known/smart-configuration"):
            self.content_type = "application/json"
            self.answer(200, {
                "token_endpoint": self.token_url(),
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["ES384", "RS384"],
                "scopes_supported": ["system/*.write"],
                "capabilities": ["client-confidential-asymmetric"],
            })
            return
        self.answer(404, {"resourceType": "OperationOutcome", "issue": []})

    def issue_token(self):
        self.content_type = "application/json"
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8"))
        with lock:
            problem = verify_assertion(form, self.token_url()) if PUBLIC_KEY else (404, "not_found", "no SMART")
            with open(files.path("tokens.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps({"status": problem[0] if problem else 200, "error": problem and problem[2]}) + "\n")
            if problem:
                self.answer(problem[0], {"error": problem[1], "error_description": problem[2]})
                return
            token = secrets.token_urlsafe(24)
            issued[token] = time.time() + args.token_lifetime
        self.answer(200, {
            "access_token": token, "token_type": "bearer", "expires_in": args.token_lifetime,
            "scope": form["scope"][0],
        })

    def do_POST(self):
        if self.path == "/auth/token":
            self.issue_token()
            return
        bundle = self.json_body({})
        entries = bundle.get("entry", [])
        with lock:
            scripted = files.next_scripted()
            if scripted == ["expire"]:
                for token in issued:
                    issued[token] = 0
                scripted = None
            lost = scripted == ["lost"]
            if scripted and not lost:
                status, headers = self.scripted_status(scripted)
                self.record(status, [[e["request"]["method"], identifier_of(e), None] for e in entries])
                self.answer(status, {"resourceType": "OperationOutcome", "issue": []}, headers)
                return
            if not authorized(self.headers.get("Authorization")):
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


test_receiver.serve(files, args.port, Handler)
