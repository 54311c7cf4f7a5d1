/**
 * The MCP configuration of AI clients, the same shapes `codegraph mcp-config` prints (the Rust
 * function `cli::mcp_config`): `mcpServers` for Claude Code (`.mcp.json`), Claude Desktop and
 * Cursor (`.cursor/mcp.json`); `servers` with `type: "stdio"` for VS Code (`.vscode/mcp.json`).
 */

export type McpClient = 'claude-code' | 'claude-desktop' | 'cursor' | 'vscode';

export interface StdioServer {
  type?: 'stdio';
  command: string;
  args: string[];
}

/** The server entry launching `binary mcp --repo repo`. */
export function serverEntry(client: McpClient, binary: string, repo: string): StdioServer {
  const entry: StdioServer = { command: binary, args: ['mcp', '--repo', repo] };
  return client === 'vscode' ? { type: 'stdio', ...entry } : entry;
}

/** The key holding the servers in that client's file. */
export function serversKey(client: McpClient): 'servers' | 'mcpServers' {
  return client === 'vscode' ? 'servers' : 'mcpServers';
}

/** Where the file goes, relative to the repository (undefined: not a repository file). */
export function configFile(client: McpClient): string | undefined {
  switch (client) {
    case 'claude-code':
      return '.mcp.json';
    case 'cursor':
      return '.cursor/mcp.json';
    case 'vscode':
      return '.vscode/mcp.json';
    case 'claude-desktop':
      return undefined;
  }
}

/** The whole file for that client, as `codegraph mcp-config --client <client>` prints it. */
export function configText(client: McpClient, binary: string, repo: string): string {
  return JSON.stringify({ [serversKey(client)]: { codegraph: serverEntry(client, binary, repo) } }, null, 2);
}

/**
 * The file's new text with the codegraph entry added or replaced, keeping everything else.
 * Throws when the existing text is not a JSON object (the caller then leaves the file alone).
 */
export function mergeConfig(existing: string | undefined, client: McpClient, binary: string, repo: string): string {
  if (existing === undefined || existing.trim() === '') {
    return configText(client, binary, repo) + '\n';
  }
  const parsed: unknown = JSON.parse(existing);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('not a JSON object');
  }
  const document = parsed as Record<string, unknown>;
  const key = serversKey(client);
  const servers = document[key];
  const kept = typeof servers === 'object' && servers !== null && !Array.isArray(servers) ? servers : {};
  document[key] = { ...kept, codegraph: serverEntry(client, binary, repo) };
  return JSON.stringify(document, null, 2) + '\n';
}

/** Claude Code's command registering the server (quoted for a POSIX shell where needed). */
export function claudeCommand(binary: string, repo: string): string {
  return `claude mcp add codegraph -- ${shellQuote(binary)} mcp --repo ${shellQuote(repo)}`;
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9/._\-+=:,@%]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
