/**
 * The extension (its packaged .vsix) in a real VS Code: code-server in headless Chromium, on
 * copies of fixtures/python, against the real `codegraph lsp`. Run by `run.sh` (see there for
 * what it installs); screenshots of failures and code-server's log go to CODEGRAPH_E2E_OUT.
 *
 * Two packages, each in a code-server of its own: the generic one (CODEGRAPH_VSIX, no binary
 * inside), on a PATH that holds `codegraph`; and the platform one (CODEGRAPH_PLATFORM_VSIX,
 * the release binary in its bin/), on a PATH that holds none, as on a machine without Rust.
 *
 * The truth comes from the fixture (fixtures/python/expected.txt: `main` is the only caller of
 * `AuthService.authenticate`) and from the codegraph CLI on the same copy (the entity count,
 * the MCP configuration), never from the extension itself.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';

import { CodeServer, launchBrowser, required, until, untilEqual, Window } from './workbench.mjs';

const repository = path.resolve(import.meta.dirname, '../../../..');
const binary = required('CODEGRAPH_BIN');
const vsix = required('CODEGRAPH_VSIX');
const platformVsix = required('CODEGRAPH_PLATFORM_VSIX');
const output = process.env.CODEGRAPH_E2E_OUT ?? path.join(repository, 'target', 'e2e-vscode');
fs.mkdirSync(output, { recursive: true });
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codegraph-e2e-vscode-')));

/** The directories of `PATH` that hold no `codegraph`. */
function pathWithoutCodegraph() {
  return (process.env.PATH ?? '')
    .split(':')
    .filter((directory) => directory && !fs.existsSync(path.join(directory, 'codegraph')))
    .join(':');
}

/** Where the generic package finds its server: `codegraph` on PATH, a link to the real one. */
const onPath = path.join(scratch, 'on-path');
fs.mkdirSync(onPath);
fs.symlinkSync(binary, path.join(onPath, 'codegraph'));

let codeServer;
let address;
let platformServer;
let platformAddress;
let browser;

before(async () => {
  codeServer = new CodeServer(path.join(scratch, 'code-server'), { PATH: `${onPath}:${pathWithoutCodegraph()}` });
  codeServer.installExtension(vsix);
  address = await codeServer.start();
  platformServer = new CodeServer(path.join(scratch, 'code-server-platform'), { PATH: pathWithoutCodegraph() });
  platformServer.installExtension(platformVsix);
  platformAddress = await platformServer.start();
  browser = await launchBrowser(path.join(scratch, 'chromium'));
});

after(async () => {
  await browser?.close();
  await codeServer?.stop();
  await platformServer?.stop();
  fs.writeFileSync(path.join(output, 'code-server.log'), codeServer?.log ?? '');
  fs.writeFileSync(path.join(output, 'code-server-platform.log'), platformServer?.log ?? '');
  // VS Code's own logs, the extension's output channel among them (exthost*/output_logging_*).
  if (codeServer && fs.existsSync(path.join(codeServer.userData, 'logs'))) {
    fs.rmSync(path.join(output, 'logs'), { recursive: true, force: true });
    fs.cpSync(path.join(codeServer.userData, 'logs'), path.join(output, 'logs'), { recursive: true });
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

/**
 * A copy of fixtures/python with a `.git` (hidden by VS Code) and these workspace settings; not
 * its `.codegraph` cache, which the README's quick start writes there (the fixture has no rules
 * file).
 */
function workspace(name, settings) {
  const folder = path.join(scratch, name);
  fs.cpSync(path.join(repository, 'fixtures', 'python'), folder, {
    recursive: true,
    filter: (source) => path.basename(source) !== '.codegraph',
  });
  fs.mkdirSync(path.join(folder, '.git'));
  fs.mkdirSync(path.join(folder, '.vscode'));
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  return folder;
}

/**
 * Runs a scenario in a fresh window (of the generic package's code-server unless `at` names
 * another); on failure saves a screenshot and what the window showed.
 */
async function inWindow(name, folder, scenario, at = address) {
  const page = await browser.newPage();
  const window = new Window(page);
  try {
    await window.open(at, folder);
    await scenario(window);
  } catch (error) {
    const shot = path.join(output, `${name}.png`);
    await page.screenshot({ path: shot }).catch(() => undefined);
    const notes = await window.notifications().catch(() => []);
    const status = await window.statusBarItems().catch(() => []);
    error.message += `\n  screenshot: ${shot}\n  status bar: ${JSON.stringify(status)}\n  notifications: ${JSON.stringify(notes)}`;
    throw error;
  } finally {
    await page.close();
  }
}

function codegraph(...args) {
  const result = spawnSync(binary, args, { encoding: 'utf8' });
  assert.equal(result.status, 0, `codegraph ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** The processes running `command args...` exactly (or as `matches` says), with their parent's pid. */
function processesRunning(command, matches = (line) => line.join(' ') === command.join(' ')) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const line = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (matches(line)) {
        const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
        found.push({ pid: Number(entry), parent: Number(/PPid:\s+(\d+)/.exec(status)[1]), command: line });
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function commandLine(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The callers tree of the references view: `level name - detail (icon)` per row. */
async function callersTree(window) {
  const tree = window.page.locator('[role="tree"][aria-label="Callers Of"]');
  await tree.waitFor({ state: 'visible', timeout: 30_000 });
  return tree.locator('.monaco-list-row').evaluateAll((rows) =>
    rows.map((row) => {
      const icon = [...row.querySelectorAll('.codicon')]
        .map((element) => [...element.classList].find((name) => name.startsWith('codicon-symbol-')))
        .find(Boolean);
      const label = row.getAttribute('aria-label').replace(/, has actions$/, '');
      return `${row.getAttribute('aria-level')} ${label} (${icon ?? 'no icon'})`;
    }),
  );
}

/** Show Call Hierarchy on the name at line:column of the open service.py; waits for `expected`. */
async function showCallers(window, line, column, expected) {
  await window.openFile('shop/auth/service.py');
  await window.goTo(line, column);
  await window.runCommand('Calls: Show Call Hierarchy');
  await untilEqual('the callers', () => callersTree(window), expected);
}

test('the extension drives codegraph in a real VS Code', { timeout: 600_000 }, async () => {
  const folder = workspace('python', { 'codegraph.server.path': binary });
  const stats = JSON.parse(codegraph('stats', '--json', '--no-cache', '--repo', folder));
  assert.ok(stats.entities > 20, JSON.stringify(stats));
  await inWindow('python', folder, async (window) => {
    await window.openFile('shop/auth/service.py');

    // The server starts as a child of the extension host, and the status bar shows the count
    // of entities the CLI finds in the same folder.
    const status = await until('the entity count in the status bar', async () => {
      const text = await window.codegraphStatus();
      return text && /entities/.test(text) ? text : undefined;
    });
    assert.equal(status, `codegraph: ${stats.entities} entities`);
    const servers = processesRunning([binary, 'lsp', '--stdio']);
    assert.equal(servers.length, 1, JSON.stringify(servers));
    assert.match(commandLine(servers[0].parent), /node.*(extensionHost|bootstrap-fork)/);
    assert.match(await window.codegraphTooltip(), new RegExp(`${folder}: 12 files, ${stats.entities} entities`));

    // Code lenses: the callers of each callable, on the line above its name. Read once the
    // editor has laid them out: lenses drawn before the layout settles all sit above the
    // same line (a CI run read every one at line 2).
    const lenses = await until('the code lenses', async () => {
      const found = await window.codeLenses();
      const lines = found.map((lens) => lens.split(':')[0]);
      return found.length >= 6 && new Set(lines).size === lines.length ? found : undefined;
    });
    assert.deepEqual(lenses, [
      '10: 0 callers', // class Authenticator
      '14: 0 callers', // Authenticator.authenticate (abstract; called through AuthService)
      '18: 1 caller', // class AuthService (main constructs it)
      '21: 0 callers', // AuthService.__init__
      '24: 1 caller', // AuthService.authenticate
      '29: 1 caller', // AuthService.hash_password
    ]);

    // The cache folder exists but the explorer hides it (the extension's files.exclude
    // default), like .git.
    assert.ok(fs.existsSync(path.join(folder, '.codegraph', '.gitignore')));
    const explorer = await window.explorerRows();
    assert.ok(explorer.includes('shop') && explorer.includes('expected.txt'), JSON.stringify(explorer));
    assert.ok(!explorer.includes('.codegraph') && !explorer.includes('.git'), JSON.stringify(explorer));

    // The call hierarchy of AuthService.authenticate lists exactly its caller `main`; each
    // item says its name, its kind (icon), its container and place.
    await showCallers(window, 24, 9, [
      '1 authenticate - AuthService · shop/auth/service.py:24 (codicon-symbol-method)',
      '2 main - shop/app/main.py:9 (codicon-symbol-function)',
    ]);
    // Choosing a caller goes to its call (`fromRanges`: `service.authenticate(...)` in main);
    // choosing the item itself goes to its name (the selection range), not to `def`.
    const rows = window.page.locator('[role="tree"][aria-label="Callers Of"] .monaco-list-row');
    await rows.filter({ hasText: 'main' }).click();
    await untilEqual('the call in main', () => window.place(), 'main.py 12:21', 10_000);
    await rows.filter({ hasText: 'AuthService' }).click();
    await untilEqual('the name of authenticate', () => window.place(), 'service.py 24:9', 10_000);

    // Go to Implementations on the abstract Authenticator.authenticate lands on AuthService's.
    await window.goTo(14, 9);
    await window.runCommand('Go to Implementations');
    await untilEqual('the cursor on AuthService.authenticate', () => window.place(), 'service.py 24:9');

    // Workspace symbols (Go to Symbol in Workspace): both authenticate methods, with their
    // containers, in service.py.
    await window.runCommand('Go to Symbol in Workspace...');
    await window.page.keyboard.type('authenticate');
    const symbols = await until('the workspace symbols', async () => {
      const rows = await window.quickPickRows();
      return rows.filter((row) => row.startsWith('authenticate')).length >= 2 ? rows : undefined;
    });
    assert.deepEqual(symbols.filter((row) => row.startsWith('authenticate')).sort(), [
      'authenticate shop.auth.service.AuthService • shop/auth/service.py',
      'authenticate shop.auth.service.Authenticator • shop/auth/service.py',
    ]);
    await window.page.keyboard.press('Escape');

    // An unsaved edit that adds a call: the next call hierarchy shows the new caller.
    const mainPath = path.join(folder, 'shop', 'app', 'main.py');
    const onDisk = fs.readFileSync(mainPath, 'utf8');
    const lines = onDisk.split('\n').length; // the last one is empty
    await window.openFile('shop/app/main.py');
    await window.typeAtEnd(
      '\ndef audit() -> str:\n    checker = AuthService(pepper="x")\n    return checker.authenticate(Admin("bob", "y"), "pw")\n',
    );
    assert.equal(await window.page.locator('.tabs-container .tab.active.dirty').count(), 1, 'main.py unsaved');
    assert.equal(fs.readFileSync(mainPath, 'utf8'), onDisk);
    await showCallers(window, 24, 9, [
      '1 authenticate - AuthService · shop/auth/service.py:24 (codicon-symbol-method)',
      `2 audit - shop/app/main.py:${lines + 1} (codicon-symbol-function)`,
      '2 main - shop/app/main.py:9 (codicon-symbol-function)',
    ]);
    // Not checked: the lens above `authenticate` (service.py is unchanged, so VS Code asks for
    // its lenses again only when it reopens it; the server sends no workspace/codeLens/refresh).

    // Connect AI Assistant: the choices, then the chosen client's file, as the CLI prints it.
    await window.runCommand('codegraph: Connect AI Assistant');
    await untilEqual('the choices', () => window.quickPickRows(), [
      'Claude Code: write .mcp.json',
      'Claude Code: copy the `claude mcp add` command',
      'Cursor: write .cursor/mcp.json',
      'VS Code: write .vscode/mcp.json',
    ]);
    await window.pickQuickInputRow('Claude Code: write .mcp.json');
    const written = path.join(folder, '.mcp.json');
    await until('.mcp.json', () => fs.existsSync(written), 30_000);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(written, 'utf8')),
      JSON.parse(codegraph('mcp-config', '--client', 'claude-code', '--repo', folder)),
    );
    await untilEqual('.mcp.json open in the editor', () => window.activeTab(), '.mcp.json');

    // Restart Server on a running server: that process exits, a new one serves the folder.
    await window.runCommand('codegraph: Restart Server');
    await until(`the first server (pid ${servers[0].pid}) to exit`, () => !alive(servers[0].pid), 30_000);
    const restarted = await until('a new server', () => {
      const found = processesRunning([binary, 'lsp', '--stdio']);
      return found.length === 1 ? found[0] : undefined;
    });
    assert.notEqual(restarted.pid, servers[0].pid);
    await until('the entity count again', async () => /^codegraph: \d+ entities$/.test((await window.codegraphStatus()) ?? ''));
    assert.deepEqual(await window.notifications(), []);
  });
});

/** A stand-in for a server whose first index never ends: passes `--version`, never answers. */
function hungServer(directory) {
  const script = path.join(directory, 'hung-codegraph');
  const starts = path.join(directory, 'starts.log');
  fs.writeFileSync(
    script,
    [
      '#!/bin/sh',
      'if [ "$1" = "--version" ]; then echo "codegraph 0.0.0 (never answers initialize)"; exit 0; fi',
      `echo $$ >> '${starts}'`,
      'exec sleep 3600',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { script, starts };
}

function startedPids(starts) {
  return fs.existsSync(starts) ? fs.readFileSync(starts, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

test('a server that never answers: the status bar says so, and Restart replaces it', { timeout: 600_000 }, async () => {
  const directory = path.join(scratch, 'hung-server');
  fs.mkdirSync(directory);
  const hung = hungServer(directory);
  const folder = workspace('hung', { 'codegraph.server.path': hung.script });
  // Whatever happens, no stand-in outlives the test (`sleep` does not end with its stdin).
  process.on('exit', () => startedPids(hung.starts).forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')));
  await inWindow('hung', folder, async (window) => {
    await window.openFile('shop/auth/service.py');
    await until('the first start', () => startedPids(hung.starts).length === 1, 60_000);
    const [first] = startedPids(hung.starts);
    const starting = /^codegraph: starting( \(no answer for \d+ s\))?$/;
    assert.match(await until('the status bar', () => window.codegraphStatus()), starting);
    // After a while it says for how long there has been no answer.
    await until('"no answer" in the status bar', async () => /^codegraph: starting \(no answer for \d+ s\)$/.test((await window.codegraphStatus()) ?? ''), 30_000);
    assert.match(await window.codegraphTooltip(), /Restart Server/);

    // The commands answer meanwhile: Connect AI Assistant offers its choices.
    await window.runCommand('codegraph: Connect AI Assistant');
    await untilEqual('the choices', async () => (await window.quickPickRows()).length, 4);
    await window.page.keyboard.press('Escape');

    // Restart ends the hung process and starts a new one, without an error for the user.
    await window.runCommand('codegraph: Restart Server');
    await until('the second start', () => startedPids(hung.starts).length === 2, 30_000);
    await until(`the first server (pid ${first}) to end`, () => !alive(first), 10_000);
    assert.match(await until('the status bar', () => window.codegraphStatus()), starting);
    const [, second] = startedPids(hung.starts);

    // Pointing the setting at the real binary restarts again: the hung one ends, the real one
    // answers and the status bar shows its count.
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'codegraph.server.path': binary }));
    await until('the entity count in the status bar', async () => /^codegraph: \d+ entities$/.test((await window.codegraphStatus()) ?? ''));
    assert.ok(!alive(second), `the second hung server (pid ${second}) still runs`);
    assert.deepEqual(startedPids(hung.starts).length, 2);
    assert.deepEqual(await window.notifications(), []);
  });
});

test('a broken server path gives one clear message', { timeout: 300_000 }, async () => {
  const missing = path.join(scratch, 'no-such-dir', 'codegraph');
  // The cache folder shown here: `"**/.codegraph": false` turns the extension's default off.
  const folder = workspace('broken', { 'codegraph.server.path': missing, 'files.exclude': { '**/.codegraph': false } });
  fs.mkdirSync(path.join(folder, '.codegraph'));
  await inWindow('broken', folder, async (window) => {
    await window.openFile('shop/auth/service.py');
    const messages = await until('the message', async () => {
      const shown = await window.notifications();
      return shown.length > 0 ? shown : undefined;
    });
    // Nothing else follows it.
    await window.page.waitForTimeout(3000);
    assert.deepEqual(await window.notifications(), [
      `codegraph: \`${missing} --version\` (the setting codegraph.server.path) does not run. Install the codegraph extension package for your platform (codegraph-linux-x64-<version>.vsix has the binary inside), or install codegraph from a clone with \`cargo install --locked --path .\` and set \`codegraph.server.path\` if it is not on PATH.`,
    ]);
    assert.equal(messages.length, 1);
    assert.equal(await window.codegraphStatus(), 'codegraph');
    assert.ok((await window.explorerRows()).includes('.codegraph'));
  });
});

/** The code lenses of service.py once the server answers: the same in every package. */
const SERVICE_LENSES = [
  '10: 0 callers', // class Authenticator
  '14: 0 callers', // Authenticator.authenticate
  '18: 1 caller', // class AuthService
  '21: 0 callers', // AuthService.__init__
  '24: 1 caller', // AuthService.authenticate
  '29: 1 caller', // AuthService.hash_password
];

async function serviceLenses(window) {
  return until('the code lenses', async () => {
    const found = await window.codeLenses();
    const lines = found.map((lens) => lens.split(':')[0]);
    return found.length >= 6 && new Set(lines).size === lines.length ? found : undefined;
  });
}

test('the generic package, with no setting, runs the codegraph on PATH', { timeout: 300_000 }, async () => {
  const folder = workspace('on-path', {});
  const stats = JSON.parse(codegraph('stats', '--json', '--no-cache', '--repo', folder));
  const onPathBinary = path.join(onPath, 'codegraph');
  await inWindow('on-path', folder, async (window) => {
    await window.openFile('shop/auth/service.py');
    await untilEqual('the entity count in the status bar', () => window.codegraphStatus(), `codegraph: ${stats.entities} entities`, 120_000);
    const servers = processesRunning([onPathBinary, 'lsp', '--stdio']);
    assert.equal(servers.length, 1, JSON.stringify(servers));
    assert.match(commandLine(servers[0].parent), /node.*(extensionHost|bootstrap-fork)/);
    assert.deepEqual(await serviceLenses(window), SERVICE_LENSES);
    assert.deepEqual(await window.notifications(), []);
  });
});

test('the platform package serves with its own binary where codegraph is not on PATH', { timeout: 300_000 }, async () => {
  // Nothing named codegraph on the PATH its VS Code runs with.
  const searched = platformServer.environment().PATH.split(':').filter(Boolean);
  assert.deepEqual(searched.filter((directory) => fs.existsSync(path.join(directory, 'codegraph'))), []);
  // The package is the platform's (its manifest says so), with the binary inside.
  const installed = fs.readdirSync(platformServer.extensions).filter((name) => name.startsWith('codegraph.codegraph-'));
  assert.equal(installed.length, 1, JSON.stringify(installed));
  const manifest = fs.readFileSync(path.join(platformServer.extensions, installed[0], '.vsixmanifest'), 'utf8');
  assert.match(manifest, /TargetPlatform="linux-x64"/);
  const bundled = path.join(platformServer.extensions, installed[0], 'bin', 'codegraph');
  assert.ok(fs.statSync(bundled).mode & 0o111, `${bundled} is not executable`);

  const folder = workspace('platform', {});
  const stats = JSON.parse(codegraph('stats', '--json', '--no-cache', '--repo', folder));
  await inWindow(
    'platform',
    folder,
    async (window) => {
      await window.openFile('shop/auth/service.py');
      await untilEqual('the entity count in the status bar', () => window.codegraphStatus(), `codegraph: ${stats.entities} entities`, 120_000);
      const servers = processesRunning([bundled, 'lsp', '--stdio']);
      assert.equal(servers.length, 1, JSON.stringify(processesRunning([], (line) => line.includes('lsp') && line.some((part) => part.endsWith('codegraph')))));
      assert.match(commandLine(servers[0].parent), /node.*(extensionHost|bootstrap-fork)/);
      assert.deepEqual(await serviceLenses(window), SERVICE_LENSES);
      await showCallers(window, 24, 9, [
        '1 authenticate - AuthService · shop/auth/service.py:24 (codicon-symbol-method)',
        '2 main - shop/app/main.py:9 (codicon-symbol-function)',
      ]);
      assert.deepEqual(await window.notifications(), []);
    },
    platformAddress,
  );
});
