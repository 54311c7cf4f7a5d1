"""codegraph driven by the official MCP Python SDK (`mcp` on PyPI), as a third-party client.

Run by tests/codegraph/e2e_mcp.rs inside a venv it creates; not meant to be run by hand, but it
can be: `python client.py stdio CODEGRAPH REPO` or `python client.py http URL REPO`.

Checks content, not counts: the tool names, the exact callers of a fixture method, a path
escape refused, a prompt that carries the source. Over HTTP it also opens a
`subscriptions/listen` stream and expects `notifications/resources/updated` when a file appears
on disk. Prints one JSON line with what was negotiated; any failed check raises.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated

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
    "reindex_repository",
    "execute_shell_command",
}
AUTHENTICATE = "shop/auth/service.py::AuthService.authenticate"
FACTORIAL_SOURCE = "return 1 if n <= 1 else n * factorial(n - 1)"
NEW_FILE_URI = "codegraph://files/shop/extra.py"


def text_of(blocks) -> str:
    return "\n".join(getattr(block, "text", "") for block in blocks)


async def check(client: Client, repo: Path, listen: bool) -> dict:
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
    # The same answer as text, for clients that ignore structured content.
    assert json.loads(text_of(callers.content))["callers"][0]["id"] == "shop/app/main.py::main"

    escape = await client.call_tool("read_file_content", {"file_path": "../x"})
    assert escape.is_error, f"../x was served: {text_of(escape.content)}"
    report["escape_refused"] = json.loads(text_of(escape.content))["error"]

    prompt = await client.get_prompt("code_review", {"entity_id": "shop/util/math.py::factorial"})
    prompt_text = "\n".join(text_of([message.content]) for message in prompt.messages)
    assert FACTORIAL_SOURCE in prompt_text, prompt_text

    stats = await client.read_resource("codegraph://stats")
    assert json.loads(stats.contents[0].text)["statistics"]["files"] >= 10

    if listen:
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


async def main() -> None:
    mode, target, repo = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    if mode == "stdio":
        server = StdioServerParameters(
            command=target,
            args=["mcp", "--no-cache", "--repo", str(repo)],
            env=dict(os.environ),
        )
        listen = False
    else:
        server = target
        listen = True
    async with Client(server) as client:
        report = await check(client, repo, listen)
    report["transport"] = mode
    print(json.dumps(report))


if __name__ == "__main__":
    anyio.run(main)
