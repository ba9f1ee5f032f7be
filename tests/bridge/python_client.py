"""The official Python MCP SDK's client, through the workbench's bridge.

Usage: python_client.py stdio MCPWB CONFIG HOME MODE
       python_client.py http URL TOKEN MODE
(mcpwb's stderr, with the servers' lines, passes through to ours.)
MODE is the SDK's connect mode: "legacy" (2025-11-25, initialize) or "auto"
(server/discover, 2026-07-28). The bridge serves two demo servers, alpha and
beta. Prints one JSON line of what it saw; exits non-zero on a failed check.
"""

import json
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
    kind = sys.argv[1]
    # The list_changed seen after the toggle (one may come at connect: the
    # bridge tells its callers whenever what it serves changes).
    changed = {"event": None}
    progress = []

    async def on_message(message):
        method = getattr(getattr(message, "root", message), "method", "")
        if method == "notifications/tools/list_changed" and changed["event"] is not None:
            changed["event"].set()

    if kind == "stdio":
        mcpwb, config, home, mode = sys.argv[2:6]
        server = StdioServerParameters(
            command=mcpwb,
            args=["--config", config, "--trust", "serve"],
            env={"HOME": home, "MCPWB_KEYCHAIN": "keyutils"},
        )
    else:
        url, token, mode = sys.argv[2:5]
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        server = streamable_http_client(url, http_client=http)
    async with Client(server, mode=mode, message_handler=on_message) as c:
        names = [t.name for t in (await c.list_tools()).tools]
        check("alpha__echo" in names and "beta__echo" in names, f"qualified names: {names}")
        echoed = await c.call_tool("alpha__echo", {"message": "from python"})
        check(echoed.content[0].text == "from python", f"echo: {echoed}")
        added = await c.call_tool("beta__add", {"a": 20, "b": 22})
        check("42" in json.dumps(added.model_dump(mode="json")), f"add: {added}")
        uris = [str(r.uri) for r in (await c.list_resources()).resources]
        check("mcpwb://beta/demo://readme" in uris, f"resources: {uris}")
        read = await c.read_resource("mcpwb://beta/demo://readme")
        check("MCP Workbench demo server" in json.dumps(read.model_dump(mode="json")), "read")
        prompt = await c.get_prompt("alpha__greet", {"name": "Ada"})
        check("Ada" in json.dumps(prompt.model_dump(mode="json")), "prompt")

        async def on_progress(p, total, message):
            progress.append(p)

        # A long call, cancelled once its progress shows it runs.
        with anyio.move_on_after(1.5):
            await c.call_tool(
                "alpha__long_task", {"steps": 100, "step_ms": 100}, progress_callback=on_progress
            )
        check(len(progress) > 0, "progress came through")
        if mode == "legacy":
            # Tools that change are told (2025 sessions hear list_changed).
            changed["event"] = anyio.Event()
            await c.call_tool("beta__toggle_extra_tool", {})
            with anyio.fail_after(10):
                await changed["event"].wait()
            after = [t.name for t in (await c.list_tools()).tools]
            check(len(after) == len(names) + 1, f"the new tool is listed: {after}")
        # Give the cancellation a moment to reach the server before leaving.
        await anyio.sleep(0.5)
    print(json.dumps({"ok": True, "tools": len(names), "progress": len(progress)}))


anyio.run(main)
