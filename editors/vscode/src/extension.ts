/**
 * The VS Code extension: starts `codegraph lsp` for the workspace, shows the index in the status
 * bar, and connects AI assistants to the same process over MCP. The logic that needs no VS Code
 * (binary lookup, MCP configuration, status text) lives in the plain modules next to this one.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorHandler,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';

import { affectedItems, affectedSummary, FolderAnswer } from './affected';
import { findBinary, Found, probeVersion } from './binary';
import { documentSelector } from './languages';
import { claudeCommand, configFile, McpClient, mergeConfig } from './mcpConfig';
import { startingText, startingTooltip, Status, statusBarText, statusLines } from './status';

/**
 * The language client, able to let go of a server that never answered `initialize`: the library
 * can only stop a running client, so a hung server's process is ended here, and the errors the
 * library then reports about the connection it lost on purpose are not shown to the user.
 */
class CodegraphClient extends LanguageClient {
  private readonly server: ServerHandle;

  constructor(command: string, args: string[], clientOptions: LanguageClientOptions) {
    const server: ServerHandle = { abandoned: false };
    // Spawned here rather than by the library so that the process can be ended before the
    // client is running.
    const serverOptions: ServerOptions = () => {
      const child = spawn(command, args, { stdio: 'pipe' });
      // A binary that vanished since its `--version` check: the client then fails to start and
      // says so; this keeps the error event from going unhandled.
      child.on('error', (error) => output.appendLine(`codegraph: cannot run ${command}: ${String(error)}`));
      server.process = child;
      return Promise.resolve(child);
    };
    super('codegraph', 'codegraph', serverOptions, {
      ...clientOptions,
      // Without a handler the library shows the raw error of an `initialize` that failed, and
      // then the same failure again (`error` below): once, saying what it is, is enough.
      initializationFailedHandler: () => false,
      // The library's own handler restarts a server that went away (up to 4 times in 3
      // minutes); never one ended on purpose.
      errorHandler: {
        error: (error, message, count) => server.fallback!.error(error, message, count),
        closed: () =>
          server.abandoned ? { action: CloseAction.DoNotRestart, handled: true } : server.fallback!.closed(),
      },
    });
    server.fallback = this.createDefaultErrorHandler();
    this.server = server;
  }

  override error(message: string, data?: unknown, showNotification?: boolean | 'force'): void {
    super.error(message, data, this.server.abandoned ? false : showNotification);
  }

  /** A client that never ran has nothing to stop politely (`shutDown` ends its process). */
  override stop(timeout?: number): Promise<void> {
    return this.isRunning() ? super.stop(timeout) : Promise.resolve();
  }

  /**
   * Stops a running server politely (`shutdown`, `exit`), otherwise (still starting) lets go of
   * it; either way its process is gone when this returns: ended with SIGTERM, then SIGKILL, if
   * it does not exit by itself. (The library ends only the processes it spawned itself.)
   */
  async shutDown(): Promise<void> {
    const running = this.isRunning();
    if (running) {
      try {
        await this.stop();
      } catch (error) {
        output.appendLine(`codegraph did not stop cleanly: ${String(error)}`);
      }
    } else {
      this.server.abandoned = true;
    }
    const child = this.server.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const within = (milliseconds: number) =>
      Promise.race([exited.then(() => true), delay(milliseconds).then(() => false)]);
    if (running && (await within(2000))) {
      return;
    }
    child.kill('SIGTERM');
    if (!(await within(2000))) {
      child.kill('SIGKILL');
      await exited;
    }
    output.appendLine(
      running
        ? `codegraph (pid ${child.pid}) did not exit after shutdown; ended it`
        : `codegraph (pid ${child.pid}) never answered initialize; ended it`,
    );
  }
}

interface ServerHandle {
  process?: ChildProcess;
  /** Let go of on purpose: its errors and its end are not the user's concern. */
  abandoned: boolean;
  fallback?: ErrorHandler;
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

let client: CodegraphClient | undefined;
let binary: Found | undefined;
let statusBar: vscode.StatusBarItem;
let output: vscode.OutputChannel;
let poll: NodeJS.Timeout | undefined;

function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('codegraph');
}

/** The arguments of `codegraph lsp`: the extra ones from the settings, the shell tool if on. */
function serverArguments(): string[] {
  const extra = settings().get<string[]>('server.extraArgs', []);
  const shell = settings()
    .get<string[]>('shell.allowedPrograms', [])
    .map((program) => program.trim())
    .filter((program) => program !== '');
  return ['lsp', '--stdio', ...extra, ...(shell.length > 0 ? ['--allow-shell', shell.join(',')] : [])];
}

async function locate(context: vscode.ExtensionContext): Promise<Found | undefined> {
  const found = await findBinary({
    setting: settings().get<string>('server.path'),
    extensionPath: context.extensionPath,
    pathVariable: process.env.PATH,
    platform: process.platform,
    probe: probeVersion,
  });
  if ('error' in found) {
    output.appendLine(found.error);
    const copy = 'Copy install command';
    void vscode.window.showErrorMessage(found.error, copy).then((choice) => {
      if (choice === copy) {
        void vscode.env.clipboard.writeText('cargo install --locked --path .');
      }
    });
    return undefined;
  }
  output.appendLine(`using ${found.path} (${found.version}, from ${found.source})`);
  return found;
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  binary = await locate(context);
  if (!binary) {
    updateStatusBar(undefined);
    return;
  }
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    outputChannel: output,
  };
  const starting = new CodegraphClient(binary.path, serverArguments(), clientOptions);
  client = starting;
  // Shown at once: a server that is slow to answer `initialize` (a first index of a big
  // repository) must not leave the status bar empty; after a while it says for how long.
  const since = Date.now();
  const showStarting = () => {
    const seconds = Math.round((Date.now() - since) / 1000);
    statusBar.text = startingText(seconds);
    statusBar.tooltip = startingTooltip(seconds);
    statusBar.show();
  };
  showStarting();
  const ticker = setInterval(() => client === starting && !starting.isRunning() && showStarting(), 1000);
  try {
    await starting.start();
  } catch (error) {
    // The client has told the user (unless it was let go of on purpose).
    output.appendLine(`codegraph failed to start: ${String(error)}`);
    if (client === starting) {
      updateStatusBar(undefined);
    }
    return;
  } finally {
    clearInterval(ticker);
  }
  if (client === starting) {
    pollStatus();
  }
}

async function stop(): Promise<void> {
  if (poll) {
    clearTimeout(poll);
    poll = undefined;
  }
  const current = client;
  client = undefined;
  await current?.shutDown();
}

async function requestStatus(): Promise<Status | undefined> {
  if (!client?.isRunning()) {
    return undefined;
  }
  try {
    return await client.sendRequest<Status>('codegraph/status');
  } catch (error) {
    output.appendLine(`codegraph/status failed: ${String(error)}`);
    return undefined;
  }
}

function updateStatusBar(status: Status | undefined): void {
  statusBar.text = statusBarText(status);
  statusBar.tooltip = status ? statusLines(status).join('\n') : 'codegraph is not running';
  statusBar.show();
}

/** Polls `codegraph/status`: often while indexing, rarely otherwise. */
function pollStatus(): void {
  void requestStatus().then((status) => {
    updateStatusBar(status);
    if (client) {
      poll = setTimeout(pollStatus, status && status.indexing === 0 ? 5000 : 500);
    }
  });
}

async function reindex(): Promise<void> {
  if (!client?.isRunning()) {
    return void vscode.window.showWarningMessage(
      client ? 'codegraph is still starting (it reindexes as it starts).' : 'codegraph is not running.',
    );
  }
  const summaries = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'codegraph: reindexing' },
    () =>
      client!.sendRequest(ExecuteCommandRequest.type, { command: 'codegraph.reindex', arguments: [] }) as Promise<
        string[] | null
      >,
  );
  void vscode.window.showInformationMessage(`codegraph: ${(summaries ?? []).join('; ')}`);
  pollStatus();
}

/** The tests the changes since HEAD reach, unsaved edits included, in a picker that opens one. */
async function showAffectedTests(): Promise<void> {
  if (!client?.isRunning()) {
    return void vscode.window.showWarningMessage('codegraph is not running.');
  }
  const answers = ((await client.sendRequest(ExecuteCommandRequest.type, {
    command: 'codegraph.affectedTests',
    arguments: [{ base: 'HEAD' }],
  })) ?? []) as FolderAnswer[];
  const items = affectedItems(answers);
  if (items.length === 0) {
    return void vscode.window.showInformationMessage(affectedSummary(answers));
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: affectedSummary(answers),
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(picked.folder, picked.file)));
    const position = new vscode.Position(Math.max(picked.line - 1, 0), 0);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position) });
  }
}

async function showStatistics(): Promise<void> {
  const status = await requestStatus();
  if (!status) {
    return void vscode.window.showWarningMessage('codegraph is not running.');
  }
  const lines = statusLines(status);
  lines.forEach((line) => output.appendLine(line));
  void vscode.window.showInformationMessage(`codegraph: ${lines.join('; ')}`);
}

/** VS Code's MCP API (1.101+), typed here because the extension supports older versions. */
interface McpApi {
  registerMcpServerDefinitionProvider(
    id: string,
    provider: { provideMcpServerDefinitions(): unknown[] },
  ): vscode.Disposable;
}
type McpStdioServerDefinitionClass = new (label: string, command: string, args: string[]) => unknown;

/** Registers codegraph with VS Code's own MCP support when this VS Code has it. */
function registerMcpProvider(context: vscode.ExtensionContext): boolean {
  const lm = (vscode as unknown as { lm?: Partial<McpApi> }).lm;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionClass })
    .McpStdioServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
    return false;
  }
  context.subscriptions.push(
    lm.registerMcpServerDefinitionProvider('codegraph', {
      provideMcpServerDefinitions: () =>
        binary
          ? (vscode.workspace.workspaceFolders ?? []).map(
              (folder) =>
                new Definition(`codegraph: ${folder.name}`, binary!.path, ['mcp', '--repo', folder.uri.fsPath]),
            )
          : [],
    }),
  );
  return true;
}

async function connectAssistant(hasMcpApi: boolean): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!binary || !folder) {
    return void vscode.window.showWarningMessage('codegraph: open a folder with codegraph running first.');
  }
  const repo = folder.uri.fsPath;
  const choices: (vscode.QuickPickItem & { client?: McpClient; copy?: boolean })[] = [
    { label: 'Claude Code: write .mcp.json', client: 'claude-code' },
    { label: 'Claude Code: copy the `claude mcp add` command', copy: true },
    { label: 'Cursor: write .cursor/mcp.json', client: 'cursor' },
    { label: 'VS Code: write .vscode/mcp.json', client: 'vscode' },
  ];
  const intro = hasMcpApi
    ? 'codegraph is registered with VS Code\'s MCP support (agent mode sees it). Also configure:'
    : 'This VS Code has no MCP API (1.101+): configure a client:';
  const picked = await vscode.window.showQuickPick(choices, { placeHolder: intro });
  if (!picked) {
    return;
  }
  if (picked.copy) {
    await vscode.env.clipboard.writeText(claudeCommand(binary.path, repo));
    return void vscode.window.showInformationMessage('codegraph: `claude mcp add` command copied.');
  }
  const client = picked.client!;
  const file = vscode.Uri.file(path.join(repo, configFile(client)!));
  let existing: string | undefined;
  try {
    existing = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  } catch {
    existing = undefined;
  }
  let text: string;
  try {
    text = mergeConfig(existing, client, binary.path, repo);
  } catch (error) {
    return void vscode.window.showErrorMessage(`codegraph: ${file.fsPath} is not a JSON object (${String(error)}); left unchanged.`);
  }
  await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
  await vscode.window.showTextDocument(file);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('codegraph');
  statusBar = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  statusBar.command = 'codegraph.showStatistics';
  context.subscriptions.push(output, statusBar);
  const hasMcpApi = registerMcpProvider(context);
  context.subscriptions.push(
    vscode.commands.registerCommand('codegraph.restartServer', () => restart(context)),
    vscode.commands.registerCommand('codegraph.reindexWorkspace', reindex),
    vscode.commands.registerCommand('codegraph.showStatistics', showStatistics),
    vscode.commands.registerCommand('codegraph.showAffectedTests', showAffectedTests),
    vscode.commands.registerCommand('codegraph.connectAssistant', () => connectAssistant(hasMcpApi)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('codegraph.server') || event.affectsConfiguration('codegraph.shell')) {
        await restart(context);
      }
    }),
  );
  // Not awaited: VS Code holds an extension's commands until `activate` returns, and the
  // server may take long to answer `initialize`; Restart and Connect must work meanwhile.
  void startInBackground(context);
}

/**
 * Stops the server (ending it if it never answered) and starts a new one without waiting for
 * its answer, so that the command returns at once even when the new server is slow too.
 */
async function restart(context: vscode.ExtensionContext): Promise<void> {
  await stop();
  void startInBackground(context);
}

/** `start`, not awaited by its caller: what goes wrong is logged and shown in the status bar. */
function startInBackground(context: vscode.ExtensionContext): Promise<void> {
  return start(context).catch((error: unknown) => {
    output.appendLine(`codegraph failed to start: ${String(error)}`);
    updateStatusBar(undefined);
  });
}

export async function deactivate(): Promise<void> {
  await stop();
}
