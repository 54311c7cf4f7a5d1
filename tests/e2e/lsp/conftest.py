"""Shared set-up of the end-to-end LSP tests.

The real `codegraph lsp --stdio` binary (its path in `CODEGRAPH_BIN`) is driven by a third-party
client, pytest-lsp (pygls), announcing Neovim 0.11's client capabilities, on a copy of a
fixture in a temporary directory. `tests/codegraph/e2e_lsp.rs` installs the client into a venv
and runs these tests as part of `cargo test`.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures"

BINARY = os.environ.get("CODEGRAPH_BIN")
if not BINARY:
    raise RuntimeError(
        "CODEGRAPH_BIN must name the codegraph binary; run these tests through "
        "`cargo test e2e_lsp` (tests/codegraph/e2e_lsp.rs sets it)"
    )

SERVER = ClientServerConfig(server_command=[BINARY, "lsp", "--stdio", "--no-cache"])

INDEX_TIMEOUT_SECONDS = 60


async def start(client: LanguageClient, fixture: str, tmp_path: pathlib.Path) -> pathlib.Path:
    """Copies `fixtures/<fixture>` under `tmp_path`, opens it as the workspace folder and
    waits until the server reports the end of its initial index."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim@v0.11.0"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=fixture)],
        )
    )
    # Neovim offers UTF-8 first; the server takes it.
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    await wait_for_index(client)
    return root


async def wait_for_index(client: LanguageClient) -> None:
    """The initial index is reported with `window/workDoneProgress`; wait for its end."""

    def ended() -> bool:
        return any(
            isinstance(report, types.WorkDoneProgressEnd)
            for reports in client.progress_reports.values()
            for report in reports
        )

    loop = asyncio.get_running_loop()
    deadline = loop.time() + INDEX_TIMEOUT_SECONDS
    while not ended():
        assert loop.time() < deadline, f"no end of indexing progress: {client.progress_reports}"
        await asyncio.sleep(0.02)


def position_of(text: str, needle: str, nth: int = 0, shift: int = 0) -> types.Position:
    """The position of the `nth` occurrence of `needle` (UTF-8 columns), plus `shift` bytes."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line_start = text.rfind("\n", 0, offset) + 1
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=len(text[line_start:offset].encode()) + shift)


def show_range(range_: types.Range) -> str:
    return f"{range_.start.line}:{range_.start.character}-{range_.end.line}:{range_.end.character}"


def show_location(root: pathlib.Path, uri: str, range_: types.Range) -> str:
    """`relative/path:line:col-line:col`."""
    prefix = root.as_uri() + "/"
    relative = uri[len(prefix) :] if uri.startswith(prefix) else uri
    return f"{relative}:{show_range(range_)}"


async def call_item(
    client: LanguageClient, path: pathlib.Path, position: types.Position
) -> types.CallHierarchyItem:
    items = await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=position
        )
    )
    assert items is not None and len(items) == 1, items
    return items[0]


async def incoming(
    client: LanguageClient, root: pathlib.Path, item: types.CallHierarchyItem
) -> list[str]:
    """Incoming calls as `name @ file:selection-range <- [call ranges]`, sorted."""
    calls = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item)
    )
    assert calls is not None
    return sorted(
        f"{call.from_.name} @ {show_location(root, call.from_.uri, call.from_.selection_range)}"
        f" <- {[show_range(range_) for range_ in call.from_ranges]}"
        for call in calls
    )


async def workspace_symbols(client: LanguageClient, root: pathlib.Path, query: str) -> list[str]:
    """Workspace symbols as `name kind container @ file:range`, in the server's order."""
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    assert symbols is not None
    return [
        f"{symbol.name} {symbol.kind.name} {symbol.container_name}"
        f" @ {show_location(root, symbol.location.uri, symbol.location.range)}"
        for symbol in symbols
    ]
