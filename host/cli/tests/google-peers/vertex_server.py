"""A stand-in for Google's token endpoint and Vertex AI's streamGenerateContent, for tack's tests.

At start it makes an RSA key and writes a service-account key file naming this server as its
token_uri. Each token request's JWT is verified by PyJWT (RS256, with the key's public half,
audience and issuer checked) before a token is issued; each model request must carry the newest
token. Tokens live EXPIRES_IN seconds (argv[4]), so a short life makes the host renew them.

Usage: vertex_server.py PORT LOG KEY_FILE EXPIRES_IN. Each request is logged to LOG as one JSON line.
"""

import json
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

PORT, LOG, KEY_FILE, EXPIRES_IN = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
EMAIL = "tack-test@tack-project.iam.gserviceaccount.com"
TOKEN_URI = f"http://127.0.0.1:{PORT}/token"

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                        serialization.NoEncryption()).decode()
with open(KEY_FILE, "w") as f:
    json.dump({"type": "service_account", "project_id": "tack-project", "private_key_id": "k1",
               "private_key": PEM, "client_email": EMAIL, "client_id": "1",
               "token_uri": TOKEN_URI}, f)

issued = []


def log(entry):
    with open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def sse(chunks):
    return "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks).encode()


def answer(body):
    contents = body.get("contents", [])
    answered = any("functionResponse" in part for c in contents for part in c.get("parts", []))
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 5, "totalTokenCount": 105}
    if not answered:
        return sse([{"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "read", "args": {"path": "a.txt"}}}]},
            "finishReason": "STOP"}], "usageMetadata": usage, "responseId": "r1"}])
    return sse([{"candidates": [{"content": {"role": "model", "parts": [{"text": "It says hello."}]},
                 "finishReason": "STOP"}], "usageMetadata": usage, "responseId": "r2"}])


class Handler(BaseHTTPRequestHandler):
    def reply(self, status, kind, body):
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/token":
            form = dict(urllib.parse.parse_qsl(body.decode()))
            problem = None
            try:
                assert form.get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer", form
                claims = jwt.decode(form["assertion"], KEY.public_key(), algorithms=["RS256"],
                                    audience=TOKEN_URI, issuer=EMAIL)
                assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform", claims
                assert jwt.get_unverified_header(form["assertion"])["kid"] == "k1"
            except Exception as e:  # the test reads the reason from the log
                problem = repr(e)
            log({"path": "/token", "problem": problem})
            if problem:
                return self.reply(400, "application/json", json.dumps(
                    {"error": "invalid_grant", "error_description": problem}).encode())
            token = f"ya29.tack-test-token-{len(issued) + 1}"
            issued.append(token)
            return self.reply(200, "application/json", json.dumps(
                {"access_token": token, "expires_in": EXPIRES_IN, "token_type": "Bearer"}).encode())
        authorization = self.headers.get("authorization", "")
        newest = issued[-1] if issued else None
        ok = newest is not None and authorization == f"Bearer {newest}"
        log({"path": self.path, "authorization": authorization, "ok": ok,
             "body": json.loads(body or b"{}")})
        if not ok:
            return self.reply(401, "application/json", json.dumps({"error": {
                "code": 401, "message": "Request had invalid authentication credentials.",
                "status": "UNAUTHENTICATED"}}).encode())
        self.reply(200, "text/event-stream", answer(json.loads(body)))

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
