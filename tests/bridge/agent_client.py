"""The official Python MCP SDK's client as a coding agent, through
`mcpwb serve --workbench`: the author's loop over the workbench's own tools.

Usage: agent_client.py MCPWB CONFIG PROJECT HOME TOOLS_JSON OWN_SUITE
The config runs `demo` (the demo server) and `py` (a server whose tools are
read from TOOLS_JSON at start). PROJECT holds a suite nobody trusted;
OWN_SUITE is the person's own. Prints one JSON line of what it saw; exits
non-zero on a failed check.
"""

import json
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def check(ok, what):
    if not ok:
        print(json.dumps({"failed": what}))
        sys.exit(1)


def data(result):
    """A tool result's structured content (and its error flag)."""
    dumped = result.model_dump(mode="json", by_alias=True)
    return dumped.get("structuredContent") or {}, bool(dumped.get("isError"))


async def main():
    mcpwb, config, project, home, tools_json, own_suite = sys.argv[1:7]
    server = StdioServerParameters(
        command=mcpwb,
        args=["--config", config, "--trust", "--project", project, "serve", "--workbench"],
        env={"HOME": home, "MCPWB_KEYCHAIN": "keyutils"},
        cwd=project,
    )
    seen = {}
    async with Client(server, mode="auto") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        names = sorted(tools)
        check("workbench_restart" in names and "demo__echo" in names, f"both kinds of tools: {names}")
        check(tools["workbench_servers"].annotations.read_only_hint is True, "annotations")
        check(tools["workbench_call"].output_schema is not None, "an output schema")

        servers, _ = data(await c.call_tool("workbench_servers", {}))
        states = {s["name"]: s["state"] for s in servers["servers"]}
        check(states == {"demo": "ready", "py": "ready"}, f"servers: {states}")

        # A call whose server asks a question: parked, answered, done.
        parked, _ = data(await c.call_tool("workbench_call", {"server": "demo", "tool": "ask_user", "arguments": {"message": "Who are you?"}}))
        check(parked.get("status") == "input_required", f"parked: {parked}")
        request = parked["input"]["request"]
        check(request["message"] == "Who are you?" and "name" in request["requestedSchema"]["properties"], f"the question: {request}")
        done, _ = data(await c.call_tool("workbench_answer_input", {"call": parked["call"], "input": parked["input"]["id"], "action": "accept", "content": {"name": "Ada", "age": 36}}))
        check(done.get("status") == "done", f"answered: {done}")
        text = json.dumps(done["result"])
        check("Ada" in text and "accept" in text, f"the server got the answer: {text}")
        seen["answered"] = done["result"]["content"][0]["text"]

        # The author adds a tool, restarts through the workbench, sees it.
        with open(tools_json, "r+") as f:
            listed = json.load(f)
            listed.append({"name": "bye", "description": "Says goodbye to whoever asks", "inputSchema": {"type": "object"}})
            f.seek(0)
            f.truncate()
            json.dump(listed, f)
        restarted, _ = data(await c.call_tool("workbench_restart", {"server": "py"}))
        check(restarted.get("changed") is True, f"restart: {restarted}")
        check(restarted["change"]["added_tools"] == ["bye"], f"the new tool: {restarted['change']}")
        seen["changes"] = [ch["code"] for ch in restarted["change"]["changes"]]
        # Against the surface since that restart: nothing changed.
        diff, _ = data(await c.call_tool("workbench_diff", {"server": "py"}))
        check(diff["changes"] == [] and diff["breaking"] == 0, f"diff: {diff}")

        # The person's own suite runs; the project's, never trusted, is refused.
        report, is_error = data(await c.call_tool("workbench_test", {"path": own_suite}))
        check(not is_error and report["passed"] == 1 and report["failed"] == 1, f"suite: {report}")
        failed = [case for s in report["suites"] for case in s["cases"] if case["outcome"] == "failed"]
        check(failed[0]["failures"][0]["assertion"] == "json /sum equals", f"the failed assertion: {failed}")
        refused, is_error = data(await c.call_tool("workbench_test", {}))
        check(is_error and refused["untrusted"], f"an untrusted suite is refused: {refused}")

        doctor, _ = data(await c.call_tool("workbench_doctor", {"server": "py"}))
        check(isinstance(doctor["findings"], list), f"doctor: {doctor}")
        seen["findings"] = sorted({f["code"] for f in doctor["findings"]})
        traffic, _ = data(await c.call_tool("workbench_traffic", {"server": "demo", "last": 50, "method": "tools/call"}))
        check(any("ask_user" in json.dumps(m) for m in traffic["messages"]), "traffic shows the call")

        # A tool the person denied is refused, and the refusal is kept.
        denied, is_error = data(await c.call_tool("workbench_call", {"server": "demo", "tool": "echo", "arguments": {"message": "hi"}}))
        check(is_error and denied.get("status") == "refused" and "denied" in denied.get("reason", ""), f"denied: {denied}")

        # The skill that teaches the loop, served as a skill's file.
        skill = await c.read_resource("skill://mcp-workbench-loop/SKILL.md")
        body = skill.contents[0].text
        check(body.startswith("---\nname: mcp-workbench-loop") and "workbench_restart" in body, "the skill")
    print(json.dumps({"ok": True, **seen}))


anyio.run(main)
