"""codegraph driven by the official MCP Python SDK (`mcp` on PyPI), as a third-party client.

Run by tests/codegraph/e2e_mcp.rs inside a venv it creates; not meant to be run by hand, but it
can be: `python client.py stdio CODEGRAPH REPO`, `python client.py attached CODEGRAPH REPO`
(a `codegraph lsp` of REPO holds an unsaved edit of shop/left/run.py) or
`python client.py http URL REPO`, or `python client.py shared CODEGRAPH REPO` (three clients at once
through `codegraph mcp` with no server running: one shared server is started and serves them
all).

Checks content, not counts: the tool names, the exact callers of a fixture method, a path
escape refused, a prompt that carries the source; the trust stamp on callers and callees (the
revision, the resolution of each edge, the references left aside, the file with unsaved edits
when attached to the editor); a hub's truncated first page with its total; annotations and an
output schema on every tool, each answer validated against its schema; completions; the
argument fixes (two spellings, incoming/outgoing, line ranges); the payload sent once. Over
HTTP it also opens a `subscriptions/listen` stream and expects
`notifications/resources/updated` when a file appears on disk. Prints one JSON line with what
was negotiated and seen; any failed check raises.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import jsonschema
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated
from mcp_types import PromptReference, ResourceTemplateReference

EXPECTED_TOOLS = {
    "query_codebase",
    "find_dependencies",
    "find_callers",
    "find_callees",
    "find_implementations",
    "analyze_module_structure",
    "get_code_snippet",
    "read_file_content",
    "get_file_structure",
    "global_search",
    "local_search",
    "suggest_refactoring",
    "reindex_repository",
}
AUTHENTICATE = "shop/auth/service.py::AuthService.authenticate"
FACTORIAL_SOURCE = "return 1 if n <= 1 else n * factorial(n - 1)"
NEW_FILE_URI = "codegraph://files/shop/extra.py"
PROCESS = "shop/left/a.py::A.process"
RUN = "shop/left/run.py::run"
HUB = "shop/hub.py::hub"


def text_of(blocks) -> str:
    return "\n".join(getattr(block, "text", "") for block in blocks)


class Checked:
    """Calls tools and validates every successful answer against the tool's output schema."""

    def __init__(self, client: Client, schemas: dict[str, dict]):
        self.client = client
        self.schemas = schemas
        self.validated: set[str] = set()

    async def ok(self, tool: str, arguments: dict) -> dict:
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, f"{tool}: {text_of(result.content)}"
        answer = result.structured_content
        jsonschema.validate(answer, self.schemas[tool])
        self.validated.add(tool)
        # This SDK's client is not one known to hand the model `structuredContent`: the text is
        # the whole answer too.
        assert json.loads(text_of(result.content[:1])) == answer, tool
        return answer

    async def error(self, tool: str, arguments: dict) -> dict:
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error, f"{tool} {arguments} should fail: {text_of(result.content)}"
        return json.loads(text_of(result.content))


async def check_trust(client: Client, attached: bool) -> dict:
    report: dict = {}
    tools = (await client.list_tools()).tools
    schemas = {}
    for tool in tools:
        assert tool.annotations is not None, f"{tool.name} has no annotations"
        assert tool.output_schema is not None, f"{tool.name} has no outputSchema"
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        schemas[tool.name] = tool.output_schema
        writes = tool.name in ("reindex_repository", "execute_shell_command")
        assert tool.annotations.read_only_hint is (not writes), tool.name
    # A stable order: the same listing, sorted by name.
    assert [tool.name for tool in tools] == sorted(tool.name for tool in tools)
    report["annotated_tools_with_output_schema"] = len(tools)
    checked = Checked(client, schemas)

    # The stamp on callers and callees.
    callers = await checked.ok("find_callers", {"entity_id": PROCESS})
    stamp = callers["provenance"]
    assert isinstance(stamp["revision"], int), stamp
    possible = [(entry["from"], entry["line"], entry["reason"], entry["candidates"]) for entry in stamp["possible"]]
    candidates = ["shop/left/a.py::A.process", "shop/left/b.py::B.process"]
    if attached:
        # The editor's unsaved text of run.py: `A().process()` proven, `thing.process()` not.
        found = [(caller["id"], caller["resolution"]) for caller in callers["callers"]]
        assert found == [(RUN, "receiver_type")], found
        assert stamp["unsaved_files"] == ["shop/left/run.py"], stamp
        assert possible == [(RUN, 5, "ambiguous", candidates)], possible
    else:
        assert callers["callers"] == [], callers
        assert stamp["unsaved_files"] == [], stamp
        assert possible == [(RUN, 2, "ambiguous", candidates)], possible
    assert stamp["stale_files"] == [], stamp
    callees = await checked.ok("find_callees", {"entity_id": RUN})
    assert [entry["name"] for entry in callees["provenance"]["possible"]] == ["process"], callees
    report["stamp"] = {
        "revision": stamp["revision"],
        "unsaved_files": stamp["unsaved_files"],
        "resolutions": sorted({caller["resolution"] for caller in callers["callers"]}),
        "possible": [f"{entry['from']}:{entry['line']} {entry['reason']}" for entry in stamp["possible"]],
    }

    # A hub: a small first page that says how to get the rest.
    hub = await checked.ok("find_callers", {"entity_id": HUB})
    assert len(hub["callers"]) == 25 and hub["total"] == 300, hub
    assert hub["truncated"] is True and hub["next_offset"] == 25, hub
    assert "offset 25" in hub["hint"], hub["hint"]
    report["hub"] = {key: hub[key] for key in ("total", "truncated", "next_offset")}
    report["hub"]["returned"] = len(hub["callers"])

    # Every other tool, each answer validated against its schema.
    await checked.ok("find_implementations", {"entity_id": "shop/auth/service.py::Authenticator"})
    await checked.ok("get_code_snippet", {"entity_id": "shop/util/math.py::factorial"})
    await checked.ok("get_file_structure", {"file_path": "shop/auth/service.py"})
    await checked.ok("analyze_module_structure", {"file_path": "shop/hub.py", "limit": 5})
    await checked.ok("global_search", {"query": "authentication"})
    await checked.ok("local_search", {"query": "token", "entity_id": AUTHENTICATE})
    await checked.ok("suggest_refactoring", {"entity_id": AUTHENTICATE})
    await checked.ok("read_file_content", {"file_path": "shop/util/math.py", "start_line": 1, "end_line": 2})
    # Would a utility importing authentication break a rule? (Proposed, never written.)
    proposal = await checked.ok(
        "check_architecture",
        {"proposed": [{"file_path": "shop/util/tokens.py", "content": "from shop.auth.service import AuthService\n"}]},
    )
    assert proposal["proposal"]["breaks_rules"] is True, proposal
    assert [entry["rule"] for entry in proposal["proposal"]["new_violations"]] == ["util-is-a-leaf"], proposal

    # The argument fixes.
    both = await checked.ok("query_codebase", {"query": "authenticate", "max_results": 2, "limit": 2})
    plain = await checked.ok("query_codebase", {"query": "authenticate", "limit": 2})
    assert both["entities"] == plain["entities"], (both, plain)
    conflict = await checked.error("query_codebase", {"query": "authenticate", "max_results": 2, "limit": 5})
    assert conflict["error"] == "Conflicting arguments", conflict
    outgoing = await checked.ok("find_dependencies", {"entity_id": AUTHENTICATE, "direction": "outgoing"})
    downstream = await checked.ok("find_dependencies", {"entity_id": AUTHENTICATE, "direction": "downstream"})
    assert outgoing["entities"] == downstream["entities"] and outgoing["entities"], outgoing
    past = await checked.error("read_file_content", {"file_path": "shop/util/math.py", "start_line": 100000})
    reversed_range = await checked.error("read_file_content", {"file_path": "shop/util/math.py", "start_line": 5, "end_line": 2})
    assert past["error"] == "Line out of range", past
    assert reversed_range["message"] == "start_line 5 is after end_line 2", reversed_range
    report["argument_fixes"] = ["two spellings", "incoming/outgoing", "line ranges"]
    # The tests to run for the change since HEAD (the editor's unsaved buffers included).
    affected = await checked.ok("find_affected_tests", {})
    report["affected"] = {
        "changed": [f"{entry['id']} {entry['change']}" for entry in affected["changed"]],
        "tests": [entry["name"] for entry in affected["tests"]],
        "unsaved": affected["provenance"]["unsaved_files"],
    }
    report["validated_tools"] = sorted(checked.validated)

    # Completions: a prompt argument and a resource-template variable.
    entity = await client.complete(PromptReference(name="code_review"), {"name": "entity_id", "value": "shop/left/a.py::A."})
    assert entity.completion.values == [PROCESS], entity
    files = await client.complete(
        ResourceTemplateReference(uri="codegraph://files/{file_path}"),
        {"name": "file_path", "value": "shop/left/"},
    )
    assert files.completion.values == ["shop/left/a.py", "shop/left/b.py", "shop/left/run.py"], files
    report["completions"] = {"entity_id": entity.completion.values, "file_path": files.completion.values}
    return report


async def check(client: Client, repo: Path, mode: str) -> dict:
    report: dict = {
        "protocol_version": client.protocol_version,
        "server": client.server_info.name if client.server_info else None,
    }

    tools = await client.list_tools()
    names = {tool.name for tool in tools.tools}
    missing = EXPECTED_TOOLS - names
    assert not missing, f"tools missing from tools/list: {sorted(missing)} (got {sorted(names)})"
    report["tools"] = sorted(names)

    callers = await client.call_tool("find_callers", {"entity_id": AUTHENTICATE})
    assert not callers.is_error, text_of(callers.content)
    caller_ids = [caller["id"] for caller in callers.structured_content["callers"]]
    assert caller_ids == ["shop/app/main.py::main"], caller_ids

    escape = await client.call_tool("read_file_content", {"file_path": "../x"})
    assert escape.is_error, f"../x was served: {text_of(escape.content)}"
    report["escape_refused"] = json.loads(text_of(escape.content))["error"]

    prompt = await client.get_prompt("code_review", {"entity_id": "shop/util/math.py::factorial"})
    prompt_text = "\n".join(text_of([message.content]) for message in prompt.messages)
    assert FACTORIAL_SOURCE in prompt_text, prompt_text

    stats = await client.read_resource("codegraph://stats")
    assert json.loads(stats.contents[0].text)["statistics"]["files"] >= 10

    report["trust"] = await check_trust(client, attached=mode == "attached")

    if mode == "http":
        async with client.listen(resource_subscriptions=[NEW_FILE_URI]) as subscription:
            (repo / "shop" / "extra.py").write_text("def on_disk():\n    return 1\n")
            with anyio.fail_after(30):
                async for event in subscription:
                    if isinstance(event, ResourceUpdated) and event.uri == NEW_FILE_URI:
                        break
        created = await client.read_resource(NEW_FILE_URI)
        entities = json.loads(created.contents[0].text)["entities"]
        assert "shop/extra.py::on_disk" in [entity["id"] for entity in entities], entities
        report["resource_updated"] = NEW_FILE_URI
    return report


def malformed_line_gets_parse_error(codegraph: str, repo: Path) -> dict:
    """A line that is not JSON gets -32700 and the connection stays: the next request is answered."""
    process = subprocess.Popen(
        [codegraph, "mcp", "--no-cache", "--no-attach", "--repo", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        assert process.stdin and process.stdout
        process.stdin.write(b"{not json\n")
        process.stdin.flush()
        parse_error = json.loads(process.stdout.readline())
        assert parse_error["error"]["code"] == -32700, parse_error
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
        }
        process.stdin.write((json.dumps(initialize) + "\n").encode())
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "codegraph", answer
        return {"parse_error": parse_error["error"]["code"], "then_answered": answer["result"]["protocolVersion"]}
    finally:
        process.kill()
        process.wait()


async def shared(codegraph: str, repo: Path, count: int) -> dict:
    """`count` SDK clients of `codegraph mcp` at once: each one's callers of AUTHENTICATE, and the
    discovery entries published while all of them are attached."""
    server = StdioServerParameters(
        command=codegraph,
        args=["mcp", "--no-cache", "--repo", str(repo)],
        env=dict(os.environ),
    )
    seen: list[list[str]] = []
    entries: list[dict] = []
    attached = anyio.Event()
    done = anyio.Event()

    async def one() -> None:
        async with Client(server) as client:
            callers = await client.call_tool("find_callers", {"entity_id": AUTHENTICATE})
            assert not callers.is_error, text_of(callers.content)
            seen.append([caller["id"] for caller in callers.structured_content["callers"]])
            if len(seen) == count:
                attached.set()
            await done.wait()

    async def read_entries() -> None:
        await attached.wait()
        sockets = Path(os.environ["XDG_RUNTIME_DIR"]) / "codegraph"
        with anyio.fail_after(10):
            while True:
                found = [json.loads(path.read_text()) for path in sorted(sockets.glob("*.json"))]
                if [entry.get("clients") for entry in found] == [count]:
                    break
                await anyio.sleep(0.05)
        entries.extend({"kind": entry["kind"], "clients": entry["clients"]} for entry in found)
        done.set()

    async with anyio.create_task_group() as group:
        for _ in range(count):
            group.start_soon(one)
        group.start_soon(read_entries)
    return {"callers": seen, "entries": entries}


async def main() -> None:
    mode, target, repo = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    if mode == "shared":
        print(json.dumps(await shared(target, repo, 3)))
        return
    if mode in ("stdio", "attached"):
        server = StdioServerParameters(
            command=target,
            args=["mcp", "--no-cache", "--tools", "all", "--repo", str(repo)],
            env=dict(os.environ),
        )
    else:
        server = target
    async with Client(server) as client:
        report = await check(client, repo, mode)
    if mode == "stdio":
        report["malformed_json"] = malformed_line_gets_parse_error(target, repo)
    report["transport"] = mode
    print(json.dumps(report))


if __name__ == "__main__":
    anyio.run(main)
