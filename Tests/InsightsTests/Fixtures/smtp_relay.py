#!/usr/bin/python3
"""A real SMTP relay for the e-mail alert tests: aiosmtpd (Debian's python3-aiosmtpd) on 127.0.0.1, with
STARTTLS required and AUTH PLAIN only after it when --cert/--key are given, writing every accepted message as
JSON (mail_from, rcpt_tos, tls, user, data, and the headers and body as Python's e-mail parser reads them) to DIR/message-N.json. Files in DIR steer it per test: `refuse`
(one address per line: 550 at RCPT), `tempfail-data` (a count: that many DATA commands get 451), `reject-data`
(every DATA gets 554). DIR/ready appears once it listens; it stops on SIGTERM or when its parent is gone."""
import argparse
import email
import email.policy
import email.utils
import json
import os
import ssl
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

parser = argparse.ArgumentParser()
parser.add_argument("--dir", required=True)
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--user")
parser.add_argument("--password")
args = parser.parse_args()


def path(name):
    return os.path.join(args.dir, name)


def lines(name):
    try:
        with open(path(name)) as f:
            return [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        return []


class Handler:
    count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in lines("refuse"):
            return "550 5.1.1 <%s>: no such user here" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        tempfail = lines("tempfail-data")
        if tempfail and int(tempfail[0]) > 0:
            with open(path("tempfail-data"), "w") as f:
                f.write(str(int(tempfail[0]) - 1))
            return "451 4.3.0 try again later"
        if os.path.exists(path("reject-data")):
            return "554 5.6.0 message refused"
        Handler.count += 1
        login = session.auth_data
        text = envelope.content.decode("utf-8")
        # Python's own e-mail parser reads the message back: headers decoded (RFC 2047), body decoded
        # (quoted-printable), so the test compares text, not an encoding.
        message = email.message_from_string(text, policy=email.policy.default)
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "tls": session.ssl is not None,
            "user": login.login.decode() if isinstance(login, LoginPassword) else None,
            "data": text,
            "subject": str(message["subject"]),
            "from": str(message["from"]),
            "to": [str(address) for address in message["to"].addresses],
            "date": str(email.utils.parsedate_to_datetime(message["date"]).isoformat()),
            "message_id": str(message["message-id"]),
            "content_type": message.get_content_type(),
            "charset": message.get_content_charset(),
            "body": message.get_content().replace("\r\n", "\n"),
        }
        temporary = path("message-%d.tmp" % Handler.count)
        with open(temporary, "w") as f:
            json.dump(record, f)
        os.rename(temporary, path("message-%d.json" % Handler.count))
        return "250 2.0.0 OK queued"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (
        isinstance(auth_data, LoginPassword)
        and auth_data.login == (args.user or "").encode()
        and auth_data.password == (args.password or "").encode()
    )
    return AuthResult(success=ok, handled=False, auth_data=auth_data)


options = {}
if args.cert:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    options.update(tls_context=context, require_starttls=True, auth_require_tls=True)
else:
    options.update(auth_require_tls=False)
if args.user:
    options.update(authenticator=authenticator, auth_required=True, auth_exclude_mechanism=["LOGIN"])

controller = Controller(Handler(), hostname="127.0.0.1", port=args.port, **options)
controller.start()
open(path("ready"), "w").close()
parent = os.getppid()
while os.getppid() == parent:
    time.sleep(0.2)
# The test process is gone: leave at once (nothing to flush; stopping the controller can wait on its loop).
os._exit(0)
