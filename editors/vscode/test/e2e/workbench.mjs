/**
 * A real VS Code for the end-to-end test: code-server (VS Code's own server build: the real
 * workbench, a Node extension host) on 127.0.0.1, driven by Playwright in Debian's headless
 * Chromium, as a person would: keyboard, command palette, what the screen shows.
 *
 * `run.sh` installs code-server and Chromium and passes their paths in the environment:
 * CODE_SERVER_NODE (Node 24), CODE_SERVER_ENTRY (code-server's out/node/entry.js), CHROMIUM.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { chromium } from 'playwright-core';

/** The flags the machine's notes give for Chromium here (no network but loopback). */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The user settings of the test's VS Code: no welcome page, chat or update checks in the way. */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.editor.enablePreview': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'security.workspace.trust.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.enabled': false,
  'files.autoSave': 'off',
  'editor.codeLens': true,
  'editor.minimap.enabled': false,
  'window.restoreWindows': 'none',
};

export function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run the test through editors/vscode/test/e2e/run.sh`);
  }
  return value;
}

/** code-server with its own user data, extensions and config under `directory`. */
export class CodeServer {
  /** `environment`: variables that replace the test process's own (`PATH`, say). */
  constructor(directory, environment = {}) {
    this.directory = directory;
    this.extraEnvironment = environment;
    this.node = required('CODE_SERVER_NODE');
    this.entry = required('CODE_SERVER_ENTRY');
    this.userData = path.join(directory, 'user-data');
    this.extensions = path.join(directory, 'extensions');
    this.config = path.join(directory, 'config.yaml');
    fs.mkdirSync(path.join(this.userData, 'User'), { recursive: true });
    fs.writeFileSync(path.join(this.userData, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
    fs.writeFileSync(this.config, 'auth: none\ncert: false\n');
    this.log = '';
  }

  arguments() {
    return ['--config', this.config, '--user-data-dir', this.userData, '--extensions-dir', this.extensions];
  }

  environment() {
    // Nothing of the user's own code-server or VS Code state.
    const xdg = path.join(this.directory, 'xdg');
    // VSCODE_CLI: the extension host gets this environment, not the one the user's login shell
    // would give (VS Code skips resolving the shell's environment when it is set), so the test
    // decides what is on PATH.
    return { ...process.env, ...this.extraEnvironment, VSCODE_CLI: '1', XDG_CONFIG_HOME: xdg, XDG_DATA_HOME: xdg, XDG_CACHE_HOME: xdg };
  }

  /** `code-server --install-extension`: what it printed, or an error saying it failed. */
  installExtension(vsix) {
    const result = spawnSync(this.node, [this.entry, ...this.arguments(), '--force', '--install-extension', vsix], {
      env: this.environment(),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const printed = `${result.stdout}${result.stderr}`;
    if (result.status !== 0 || !printed.includes('was successfully installed')) {
      throw new Error(`code-server --install-extension ${vsix} failed (exit ${result.status}):\n${printed}`);
    }
    return printed;
  }

  /** Starts the server on a free loopback port; resolves with its address. */
  start() {
    const args = [
      this.entry,
      ...this.arguments(),
      '--bind-addr',
      '127.0.0.1:0',
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ];
    this.process = spawn(this.node, args, { env: this.environment(), stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`code-server did not start in 120 s:\n${this.log}`)), 120_000);
      const read = (chunk) => {
        this.log += chunk.toString();
        const found = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(this.log);
        if (found && !this.address) {
          this.address = found[1];
          clearTimeout(timer);
          resolve(this.address);
        }
      };
      this.process.stdout.on('data', read);
      this.process.stderr.on('data', read);
      this.process.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`code-server exited (${code}):\n${this.log}`));
      });
    });
  }

  async stop() {
    if (this.process && this.process.exitCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      this.process.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (this.process.exitCode === null) {
        this.process.kill('SIGKILL');
      }
    }
  }
}

/** Headless Chromium (a persistent context: its own fresh user data directory). */
export async function launchBrowser(userDataDirectory) {
  return chromium.launchPersistentContext(userDataDirectory, {
    executablePath: required('CHROMIUM'),
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 900 },
  });
}

/** Waits until `probe` returns something other than undefined/false; throws with `what` after `timeout`. */
export async function until(what, probe, timeout = 60_000, interval = 250) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last !== undefined && last !== false && last !== null) {
        return last;
      }
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout / 1000} s waiting for ${what} (last: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** Waits until `probe` returns `expected` (compared as JSON); the error says what it last saw. */
export async function untilEqual(what, probe, expected, timeout = 30_000) {
  let seen;
  await until(
    what,
    async () => {
      seen = await probe();
      return JSON.stringify(seen) === JSON.stringify(expected);
    },
    timeout,
  ).catch((error) => {
    throw new Error(`${error.message}\n  expected: ${JSON.stringify(expected)}\n  last seen: ${JSON.stringify(seen)}`);
  });
}

/** One VS Code window (a browser page) on one folder. */
export class Window {
  constructor(page) {
    this.page = page;
  }

  /** Opens the folder in this page; resolves when the workbench shows its explorer. */
  async open(address, folder) {
    await this.page.goto(`${address}/?folder=${encodeURIComponent(folder)}`);
    await this.page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 120_000 });
    await this.page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
  }

  /** The texts of the status bar's items. */
  async statusBarItems() {
    return this.page.locator('.part.statusbar .statusbar-item').allInnerTexts();
  }

  /** The text of the codegraph status bar item (its id is the extension's id). */
  async codegraphStatus() {
    const item = this.page.locator('[id="codegraph.codegraph"]');
    if ((await item.count()) === 0) {
      return undefined;
    }
    return (await item.innerText()).trim();
  }

  async codegraphTooltip() {
    const item = this.page.locator('[id="codegraph.codegraph"] a, [id="codegraph.codegraph"]').first();
    return item.getAttribute('aria-label');
  }

  /** The texts of the notifications shown (toasts and the notification center's list). */
  async notifications() {
    return this.page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
  }

  async dismissNotifications() {
    await this.runCommand('Notifications: Clear All Notifications');
  }

  /** Runs a command from the palette by its title, e.g. "codegraph: Restart Server". */
  async runCommand(title) {
    await this.quickInput('F1', `>${title}`);
    const row = this.page.locator('.quick-input-widget .monaco-list-row', {
      has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
    });
    await row.first().waitFor({ state: 'visible', timeout: 30_000 });
    await row.first().click();
  }

  /**
   * Opens the quick input with `key` and types `text`. Tried again when the input does not take
   * the text: while the workbench moves focus (a view closing, an editor opening) the quick
   * input can open inert.
   */
  async quickInput(key, text) {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press(key);
      try {
        await input.fill(text, { timeout: 5000 });
        return;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
      }
    }
  }

  /** The rows the quick input shows (a quick pick, workspace symbols): `label description`. */
  async quickPickRows() {
    const rows = this.page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor({ state: 'visible', timeout: 30_000 });
    return rows.evaluateAll((found) =>
      found.map((row) =>
        [row.querySelector('.label-name'), row.querySelector('.label-description')]
          .map((part) => part?.textContent.trim() ?? '')
          .filter(Boolean)
          .join(' '),
      ),
    );
  }

  async pickQuickInputRow(label) {
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: label });
    await row.first().click();
  }

  /** Opens a file of the folder with Go to File. */
  async openFile(relative) {
    await this.quickInput('Control+P', relative);
    // Clicked rather than Enter: the list may still show recently opened files first.
    const row = this.page
      .locator('.quick-input-widget .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(path.basename(relative))}$`) }) })
      .filter({ has: this.page.locator('.label-description', { hasText: new RegExp(`^${escapeRegExp(path.dirname(relative))}$`) }) });
    await row.first().waitFor({ state: 'visible', timeout: 30_000 });
    await row.first().click();
    await untilEqual(`${relative} open`, () => this.activeTab(), path.basename(relative));
    await this.page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ state: 'visible' });
  }

  /** Moves the cursor with Go to Line (one-based line and column). */
  async goTo(line, column) {
    await this.quickInput('Control+G', `:${line}:${column}`);
    await this.page.keyboard.press('Enter');
    await untilEqual(`the cursor at ${line}:${column}`, () => this.cursor(), `${line}:${column}`, 10_000);
  }

  /** The cursor as the status bar says it, `line:column`. */
  async cursor() {
    const text = await this.page.locator('[id="status.editor.selection"]').innerText();
    const found = /Ln (\d+), Col (\d+)/.exec(text);
    return found ? `${found[1]}:${found[2]}` : undefined;
  }

  /** The cursor and selection as the status bar says them, e.g. `24:9 (12 selected)`. */
  async selection() {
    const text = await this.page.locator('[id="status.editor.selection"]').innerText();
    const found = /Ln (\d+), Col (\d+)(?: \((\d+) selected\))?/.exec(text);
    if (!found) {
      return undefined;
    }
    return found[3] ? `${found[1]}:${found[2]} (${found[3]} selected)` : `${found[1]}:${found[2]}`;
  }

  /** The file name of the active editor's tab. */
  async activeTab() {
    const tabs = this.page.locator('.tabs-container .tab.active');
    return (await tabs.evaluateAll((found) => found.map((tab) => tab.getAttribute('data-resource-name')))).join(', ');
  }

  /** The active tab and the cursor, e.g. `main.py 12:21`. */
  async place() {
    return `${await this.activeTab()} ${await this.cursor()}`;
  }

  /**
   * The code lenses of the visible editor, each as `line: title`, the line being the one the
   * lens stands above (the first line number below it on the screen), in line order.
   */
  async codeLenses() {
    const editor = this.page.locator('.editor-instance .monaco-editor').first();
    return editor.evaluate((element) => {
      const numbers = [...element.querySelectorAll('.line-numbers')].map((number) => ({
        line: Number(number.textContent.trim()),
        top: number.getBoundingClientRect().top,
      }));
      return [...element.querySelectorAll('.codelens-decoration')]
        .map((lens) => {
          const bottom = lens.getBoundingClientRect().bottom;
          const below = numbers.filter((number) => number.top >= bottom - 1).sort((a, b) => a.top - b.top)[0];
          return { line: below ? below.line : -1, title: lens.textContent.trim() };
        })
        .sort((a, b) => a.line - b.line)
        .map((lens) => `${lens.line}: ${lens.title}`);
    });
  }

  /** The file explorer's rows (names), top level after expanding nothing. */
  async explorerRows() {
    return this.page.locator('.explorer-folders-view .monaco-list-row .label-name').allInnerTexts();
  }

  /** Types at the end of the active editor's document (leaves it unsaved). */
  async typeAtEnd(text) {
    await this.page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await this.page.keyboard.press('Control+End');
    // The editor would indent the lines it is given one by one; insert the text as typed.
    await this.page.keyboard.insertText(text);
  }

  async screenshot(file) {
    await this.page.screenshot({ path: file });
  }
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
