"""The TypeScript fixture through a third-party client: call hierarchy and workspace symbols."""

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
from pytest_lsp import LanguageClient


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    await start(lsp_client, "typescript", tmp_path)
    yield
    await lsp_client.shutdown_session()


async def test_incoming_calls_of_authenticate_are_exactly_main(
    client: LanguageClient, tmp_path: pathlib.Path
):
    root = tmp_path / "typescript"
    service = root / "src/auth/service.ts"
    # The class's method (the second `authenticate(`), not the interface's.
    position = position_of(service.read_text(), "authenticate(", nth=1)
    item = await call_item(client, service, position)
    assert item.name == "authenticate"
    assert show_location(root, item.uri, item.selection_range) == "src/auth/service.ts:13:2-13:14"
    assert await incoming(client, root, item) == [
        "main @ src/app/main.ts:9:16-9:20 <- ['12:24-12:36']"
    ]


async def test_workspace_symbols(client: LanguageClient, tmp_path: pathlib.Path):
    root = tmp_path / "typescript"
    symbols = await workspace_symbols(client, root, "AuthService")
    assert symbols[0] == "AuthService Class src.auth.service @ src/auth/service.ts:10:13-10:24"
