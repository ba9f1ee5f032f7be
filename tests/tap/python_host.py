"""The official Python MCP SDK's client as a host, its server run through
`mcpwb tap`.

Usage: python_host.py stdio MODE COMMAND ARGS...   (COMMAND is the tap)
       python_host.py http MODE URL
MODE is the SDK's connect mode: "legacy" (2025-11-25, initialize) or "auto"
(server/discover, 2026-07-28). The server is the demo server. Prints one JSON
line of what it saw; exits non-zero on a failed check.
"""

import json
import os
import sys

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def check(ok, what):
    if not ok:
        print(json.dumps({"failed": what}))
        sys.exit(1)


async def main():
    kind, mode = sys.argv[1], sys.argv[2]
    if kind == "stdio":
        # The tap's whole environment (its own store and keychain in tests).
        server = StdioServerParameters(
            command=sys.argv[3], args=sys.argv[4:], env=dict(os.environ)
        )
    else:
        http = httpx2.AsyncClient(timeout=30)
        server = streamable_http_client(sys.argv[3], http_client=http)
    progress = []

    async def on_progress(p, total, message):
        progress.append(p)

    async with Client(server, mode=mode) as c:
        names = [t.name for t in (await c.list_tools()).tools]
        check("echo" in names and "add" in names, f"tools: {names}")
        echoed = await c.call_tool("echo", {"message": "from a python host"})
        check(echoed.content[0].text == "from a python host", f"echo: {echoed}")
        added = await c.call_tool("add", {"a": 20, "b": 22})
        check("42" in json.dumps(added.model_dump(mode="json")), f"add: {added}")
        failed = await c.call_tool("fail", {"reason": "as the host saw it"})
        check(failed.is_error, f"fail: {failed}")
        read = await c.read_resource("demo://readme")
        check("MCP Workbench demo server" in json.dumps(read.model_dump(mode="json")), "read")
        await c.call_tool(
            "long_task", {"steps": 3, "step_ms": 20}, progress_callback=on_progress
        )
        check(len(progress) == 3, f"progress came through: {progress}")
    print(json.dumps({"ok": True, "tools": len(names), "progress": len(progress)}))


anyio.run(main)
