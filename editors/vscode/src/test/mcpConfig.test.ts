import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { claudeCommand, configFile, configText, mergeConfig } from '../mcpConfig';

// The same shapes as `codegraph mcp-config` (src/cli.rs tests use these paths too).
const BINARY = '/opt/bin/codegraph';
const REPO = '/home/me/shop';

test('VS Code: servers with type stdio, byte for byte as codegraph mcp-config prints it', () => {
  assert.equal(
    configText('vscode', BINARY, REPO),
    `{
  "servers": {
    "codegraph": {
      "type": "stdio",
      "command": "/opt/bin/codegraph",
      "args": [
        "mcp",
        "--repo",
        "/home/me/shop"
      ]
    }
  }
}`,
  );
  assert.equal(configFile('vscode'), '.vscode/mcp.json');
});

test('Claude Code, Claude Desktop and Cursor: mcpServers', () => {
  const expected = { mcpServers: { codegraph: { command: BINARY, args: ['mcp', '--repo', REPO] } } };
  for (const client of ['claude-code', 'claude-desktop', 'cursor'] as const) {
    assert.deepEqual(JSON.parse(configText(client, BINARY, REPO)), expected, client);
  }
  assert.equal(configFile('claude-code'), '.mcp.json');
  assert.equal(configFile('cursor'), '.cursor/mcp.json');
  assert.equal(configFile('claude-desktop'), undefined);
});

test('merging keeps other servers and keys, and replaces an old codegraph entry', () => {
  const existing = JSON.stringify({
    mcpServers: { other: { command: 'other-server' }, codegraph: { command: 'old' } },
    somethingElse: true,
  });
  assert.deepEqual(JSON.parse(mergeConfig(existing, 'cursor', BINARY, REPO)), {
    mcpServers: { other: { command: 'other-server' }, codegraph: { command: BINARY, args: ['mcp', '--repo', REPO] } },
    somethingElse: true,
  });
  assert.deepEqual(JSON.parse(mergeConfig('{"inputs": []}', 'vscode', BINARY, REPO)), {
    inputs: [],
    servers: { codegraph: { type: 'stdio', command: BINARY, args: ['mcp', '--repo', REPO] } },
  });
  assert.equal(mergeConfig(undefined, 'vscode', BINARY, REPO), configText('vscode', BINARY, REPO) + '\n');
  assert.throws(() => mergeConfig('[1, 2]', 'cursor', BINARY, REPO), /not a JSON object/);
  assert.throws(() => mergeConfig('{ broken', 'cursor', BINARY, REPO), SyntaxError);
});

test('the claude mcp add command quotes paths that need it', () => {
  assert.equal(claudeCommand(BINARY, REPO), 'claude mcp add codegraph -- /opt/bin/codegraph mcp --repo /home/me/shop');
  assert.equal(
    claudeCommand('/Applications/My Tools/codegraph', "/home/me/it's here"),
    "claude mcp add codegraph -- '/Applications/My Tools/codegraph' mcp --repo '/home/me/it'\\''s here'",
  );
});
