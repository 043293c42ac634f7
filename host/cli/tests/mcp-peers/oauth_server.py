"""An MCP server over streamable HTTP that asks for an OAuth login, written with the official
`mcp` package from PyPI: its protected-resource metadata, authorization-server metadata, client
registration, authorize and token endpoints are the SDK's own; this file only keeps the clients,
codes and tokens in memory, and approves every authorization at once, as a user clicking "Allow"
in the browser would.

    python oauth_server.py PORT LOG

Tokens expire after a minute, so a tack that starts again refreshes its login first. LOG gets one
line per HTTP request (method, path, whether it carried a bearer token) and one per grant.
"""

import secrets
import sys
import time

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthToken

PORT = int(sys.argv[1])
LOG = sys.argv[2]
BASE = f"http://127.0.0.1:{PORT}"
EXPIRES = 60


def log(line):
    with open(LOG, "a", encoding="utf-8") as out:
        out.write(line + "\n")


class Provider:
    def __init__(self):
        self.clients = {}
        self.codes = {}
        self.tokens = {}
        self.refresh_tokens = {}

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info
        log(f"registered {client_info.client_name}")

    async def authorize(self, client, params):
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        log(f"authorized for {params.resource}")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        log("issued")
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token):
        return self.refresh_tokens.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        self.refresh_tokens.pop(refresh_token.token, None)
        log("refreshed")
        return self.issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token):
        found = self.tokens.get(token)
        if found and found.expires_at and found.expires_at < time.time():
            return None
        return found

    async def revoke_token(self, token):
        self.tokens.pop(getattr(token, "token", ""), None)

    def issue(self, client_id, scopes, resource):
        access = secrets.token_urlsafe(24)
        refresh = secrets.token_urlsafe(24)
        self.tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + EXPIRES,
            resource=resource,
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(access_token=access, expires_in=EXPIRES, refresh_token=refresh)


server = MCPServer(
    "tack-test-oauth",
    auth_server_provider=Provider(),
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=f"{BASE}/mcp",
        client_registration_options=ClientRegistrationOptions(enabled=True),
        validate_token_resource=True,
    ),
)


@server.tool()
def whoami() -> str:
    """Who the request's token was issued to."""
    token = get_access_token()
    return f"authorized for {token.resource}" if token else "anonymous"


mcp_app = server.streamable_http_app()


async def app(scope, receive, send):
    if scope["type"] == "http":
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        bearer = headers.get("authorization", "").startswith("Bearer ")
        log(f"{scope['method']} {scope['path']} bearer={'yes' if bearer else 'no'}")
    await mcp_app(scope, receive, send)


uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
