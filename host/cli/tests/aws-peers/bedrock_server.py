"""A stand-in for Amazon Bedrock's Converse stream endpoint, for tack's tests.

Every request's SigV4 signature is computed again by botocore (AWS's own Python signer) from
the headers the request says it signed, with the secret key the test gave this server, and a
request whose signature differs is refused as Bedrock refuses it. Answers are AWS event-stream
frames, each checked by botocore's own event-stream parser before it is sent.

Usage: bedrock_server.py PORT LOG   (env: BEDROCK_TEST_KEY_ID, BEDROCK_TEST_SECRET,
BEDROCK_TEST_REGION). Each request is logged to LOG as one JSON line.
"""

import json
import os
import struct
import sys
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.eventstream import EventStreamBuffer

PORT, LOG = int(sys.argv[1]), sys.argv[2]
KEY_ID = os.environ["BEDROCK_TEST_KEY_ID"]
SECRET = os.environ["BEDROCK_TEST_SECRET"]
REGION = os.environ["BEDROCK_TEST_REGION"]


def frame(event_type, payload):
    headers = b""
    for name, value in ((":event-type", event_type), (":content-type", "application/json"),
                        (":message-type", "event")):
        value = value.encode()
        headers += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value
    body = json.dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + body
    message += struct.pack(">I", zlib.crc32(message))
    parser = EventStreamBuffer()
    parser.add_data(message)
    parsed = list(parser)
    assert len(parsed) == 1 and parsed[0].headers[":event-type"] == event_type, parsed
    return message


def answer(request_body):
    turns = request_body.get("messages", [])
    answered = any("toolResult" in block for turn in turns for block in turn.get("content", []))
    # A body a plugin wrote instead (the payload-hook test) is answered in words.
    replaced = "replaced by a plugin" in json.dumps(request_body)
    if not answered and not replaced:
        return [
            ("messageStart", {"role": "assistant"}),
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Read it first."}}}),
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2lnbmVk"}}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_a1", "name": "read"}}}),
            ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"path\": \"a.txt\"}"}}}),
            ("contentBlockStop", {"contentBlockIndex": 1}),
            ("messageStop", {"stopReason": "tool_use"}),
            ("metadata", {"usage": {"inputTokens": 1000, "outputTokens": 40, "totalTokens": 1540,
                                    "cacheReadInputTokens": 500}, "metrics": {"latencyMs": 10}}),
        ]
    return [
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "It says hello."}}),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        ("messageStop", {"stopReason": "end_turn"}),
        ("metadata", {"usage": {"inputTokens": 1200, "outputTokens": 5, "totalTokens": 1205}, "metrics": {"latencyMs": 5}}),
    ]


def signature_problem(handler, body):
    authorization = handler.headers.get("authorization", "")
    if not authorization.startswith("AWS4-HMAC-SHA256 "):
        return "no SigV4 authorization"
    fields = dict(part.strip().split("=", 1) for part in authorization[len("AWS4-HMAC-SHA256 "):].split(","))
    key_id, date, region, service, terminal = fields["Credential"].split("/")
    amz_date = handler.headers.get("x-amz-date", "")
    if (key_id, region, service, terminal) != (KEY_ID, REGION, "bedrock", "aws4_request"):
        return f"wrong credential scope {fields['Credential']}"
    if date != amz_date[:8]:
        return "the scope's date is not the request's"
    signed = fields["SignedHeaders"].split(";")
    headers = {name: handler.headers.get(name, "") for name in signed}
    request = AWSRequest(method=handler.command, url=f"http://{headers['host']}{handler.path}",
                         data=body, headers=headers)
    request.context["timestamp"] = amz_date
    token = handler.headers.get("x-amz-security-token")
    auth = SigV4Auth(Credentials(KEY_ID, SECRET, token), "bedrock", REGION)
    canonical = auth.canonical_request(request)
    expected = auth.signature(auth.string_to_sign(request, canonical), request)
    if expected != fields["Signature"]:
        return f"signature mismatch; botocore's canonical request:\n{canonical}"
    return None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        problem = signature_problem(self, body)
        with open(LOG, "a") as log:
            log.write(json.dumps({
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": json.loads(body or b"{}"),
                "signature_problem": problem,
            }) + "\n")
        if problem:
            reply = json.dumps({"message": problem}).encode()
            self.send_response(403)
            self.send_header("content-type", "application/json")
            self.send_header("x-amzn-ErrorType", "InvalidSignatureException")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        stream = b"".join(frame(name, payload) for name, payload in answer(json.loads(body)))
        self.send_response(200)
        self.send_header("content-type", "application/vnd.amazon.eventstream")
        self.send_header("content-length", str(len(stream)))
        self.end_headers()
        self.wfile.write(stream)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
