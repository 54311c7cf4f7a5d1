"""The Python fixture through a third-party client: call hierarchy, workspace symbols, and an
unsaved edit seen by the very next request."""

from __future__ import annotations

import pathlib

import pytest_lsp
from conftest import (
    SERVER,
    call_item,
    incoming,
    position_of,
    show_location,
    start,
    workspace_symbols,
)
from lsprotocol import types
from pytest_lsp import LanguageClient


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    await start(lsp_client, "python", tmp_path)
    yield
    await lsp_client.shutdown_session()


AUTHENTICATE = "shop/auth/service.py:23:8-23:20"


async def authenticate_item(client: LanguageClient, root: pathlib.Path):
    service = root / "shop/auth/service.py"
    position = position_of(service.read_text(), "authenticate(self", nth=1, shift=2)
    return await call_item(client, service, position)


async def test_incoming_calls_of_authenticate_are_exactly_main(
    client: LanguageClient, tmp_path: pathlib.Path
):
    root = tmp_path / "python"
    item = await authenticate_item(client, root)
    assert item.name == "authenticate"
    assert item.kind == types.SymbolKind.Method
    assert show_location(root, item.uri, item.selection_range) == AUTHENTICATE
    assert await incoming(client, root, item) == [
        "main @ shop/app/main.py:8:4-8:8 <- ['11:20-11:32']"
    ]


async def test_workspace_symbols_rank_exact_then_fuzzy(
    client: LanguageClient, tmp_path: pathlib.Path
):
    root = tmp_path / "python"
    symbols = await workspace_symbols(client, root, "AuthService")
    assert symbols[0] == "AuthService Class shop.auth.service @ shop/auth/service.py:17:6-17:17"
    symbols = await workspace_symbols(client, root, "fact")
    assert symbols[0] == "factorial Function shop.util.math @ shop/util/math.py:0:4-0:13"
    # A subsequence: a(uth)s(er)v(i)c(e).
    symbols = await workspace_symbols(client, root, "authsvc")
    assert symbols == ["AuthService Class shop.auth.service @ shop/auth/service.py:17:6-17:17"]


AUDIT = (
    "def audit() -> None:\n"
    '    service = AuthService(pepper="pepper")\n'
    '    service.authenticate(Admin("root", "y"), "again")\n'
    "\n"
    "\n"
)


async def test_unsaved_edits_change_the_next_incoming_calls(
    client: LanguageClient, tmp_path: pathlib.Path
):
    root = tmp_path / "python"
    main = root / "shop/app/main.py"
    on_disk = main.read_text()
    document = types.VersionedTextDocumentIdentifier(uri=main.as_uri(), version=2)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=main.as_uri(), language_id="python", version=1, text=on_disk
            )
        )
    )
    # A new caller, typed above `if __name__ == "__main__":` and not saved; the request goes out
    # right behind the notification.
    guard = position_of(on_disk, "if __name__")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=document,
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=guard, end=guard), text=AUDIT
                )
            ],
        )
    )
    item = await authenticate_item(client, root)
    assert await incoming(client, root, item) == [
        "audit @ shop/app/main.py:15:4-15:9 <- ['17:12-17:24']",
        "main @ shop/app/main.py:8:4-8:8 <- ['11:20-11:32']",
    ]
    assert main.read_text() == on_disk

    # `main` stops calling it.
    call_line = position_of(on_disk, "token = service.authenticate").line
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=main.as_uri(), version=3),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=call_line, character=0),
                        end=types.Position(line=call_line + 1, character=0),
                    ),
                    text='    token = "none"\n',
                )
            ],
        )
    )
    assert await incoming(client, root, item) == [
        "audit @ shop/app/main.py:15:4-15:9 <- ['17:12-17:24']"
    ]

    # Closing without saving returns the file to its text on disk.
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=main.as_uri())
        )
    )
    assert await incoming(client, root, item) == [
        "main @ shop/app/main.py:8:4-8:8 <- ['11:20-11:32']"
    ]
