"""An MCP server over streamable HTTP, written with the official `mcp` package from PyPI (pinned
in requirements.txt), which tack's MCP tests reach through the built-in mcp plugin.

    python streamable_http_server.py PORT LOG [sse]

It answers only requests that carry `Authorization: Bearer $MCP_TEST_TOKEN` (401 otherwise), and
writes one line per HTTP request to LOG: the method, whether the token was right, and the session
it named. Its tools: `add`, `region` (the `X-Region` header the client sent) and `restart`, which
answers and then starts the server afresh in the same process, forgetting every session, as a
redeployed server does; and `grow`, which answers and half a second later adds the tool
`extra` and says so, unprompted (over the session's GET stream). Its prompt `review` takes a
path and a focus; its resource `notes://today` is a line of text.

With `sse`, it serves the older HTTP+SSE transport instead (the event stream at /sse, messages
posted to /messages/).
"""

import asyncio
import os
import sys
import threading

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

PORT = int(sys.argv[1])
LOG = sys.argv[2]
TOKEN = os.environ["MCP_TEST_TOKEN"]
SEEN = {"region": ""}

server = MCPServer("tack-test-http")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two whole numbers."""
    return a + b


@server.tool()
def region() -> str:
    """The region header this server was sent."""
    return f"region: {SEEN['region'] or 'none'}"


@server.tool()
def restart() -> str:
    """Starts the server afresh, forgetting its sessions."""

    def again():
        os.execv(sys.executable, [sys.executable, *sys.argv])

    threading.Timer(0.3, again).start()
    return "restarting"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra` shortly after answering."""
    session = ctx.session

    async def later():
        await asyncio.sleep(0.5)
        server.add_tool(lambda: "extra did its thing", name="extra", description="Added later.")
        await session.send_tool_list_changed()

    asyncio.get_running_loop().create_task(later())
    return "growing"


@server.prompt()
def review(path: str, focus: str = "bugs") -> str:
    """Asks for a review of one file."""
    return f"Please review {path}, looking for {focus}."


@server.resource("notes://today", name="today", mime_type="text/plain")
def today() -> str:
    return "Ship the MCP client before Friday."


SSE = len(sys.argv) > 3 and sys.argv[3] == "sse"
mcp_app = server.sse_app() if SSE else server.streamable_http_app()


async def app(scope, receive, send):
    if scope["type"] == "http":
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        authorized = headers.get("authorization") == f"Bearer {TOKEN}"
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(
                f"{scope['method']} {scope['path']} token={'ok' if authorized else 'missing'} "
                f"session={headers.get('mcp-session-id', '-')}\n"
            )
        if not authorized:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        SEEN["region"] = headers.get("x-region", "")
    await mcp_app(scope, receive, send)


uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
