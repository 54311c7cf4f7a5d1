/**
 * Finding the `codegraph` binary: the setting `codegraph.server.path`, else one bundled in the
 * extension's `bin/`, else `PATH`; each candidate is checked by running `--version`.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';

export const INSTALL_HINT =
  'Install the codegraph extension package for your platform (codegraph-linux-x64-<version>.vsix has the binary inside), or install codegraph from a clone with `cargo install --locked --path .` and set `codegraph.server.path` if it is not on PATH.';

export interface Found {
  path: string;
  /** What `--version` printed, e.g. `codegraph 0.1.0`. */
  version: string;
  source: 'setting' | 'bundled' | 'PATH';
}

export interface LookupOptions {
  /** The setting `codegraph.server.path` (empty or undefined: not set). */
  setting?: string;
  /** The extension's own directory (its `bin/` may hold a bundled binary). */
  extensionPath: string;
  /** The `PATH` to search. */
  pathVariable: string | undefined;
  platform: NodeJS.Platform;
  /** Runs `<binary> --version`: what it printed, or undefined when it does not run. */
  probe: (binary: string) => Promise<string | undefined>;
}

function executableName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'codegraph.exe' : 'codegraph';
}

/** The candidates, in order. A set `codegraph.server.path` is the only candidate. */
export function candidates(options: LookupOptions): { path: string; source: Found['source'] }[] {
  const setting = options.setting?.trim();
  if (setting) {
    return [{ path: setting, source: 'setting' }];
  }
  const name = executableName(options.platform);
  const pathApi = options.platform === 'win32' ? path.win32 : path.posix;
  const found: { path: string; source: Found['source'] }[] = [
    { path: pathApi.join(options.extensionPath, 'bin', name), source: 'bundled' },
  ];
  const separator = options.platform === 'win32' ? ';' : ':';
  for (const directory of (options.pathVariable ?? '').split(separator)) {
    if (directory) {
      found.push({ path: pathApi.join(directory, name), source: 'PATH' });
    }
  }
  return found;
}

/** The first candidate whose `--version` runs; otherwise an error message saying what to do. */
export async function findBinary(options: LookupOptions): Promise<Found | { error: string }> {
  for (const candidate of candidates(options)) {
    const version = await options.probe(candidate.path);
    if (version !== undefined) {
      return { ...candidate, version };
    }
  }
  const setting = options.setting?.trim();
  if (setting) {
    return { error: `codegraph: \`${setting} --version\` (the setting codegraph.server.path) does not run. ${INSTALL_HINT}` };
  }
  return { error: `codegraph: the codegraph binary was not found (bundled or on PATH). ${INSTALL_HINT}` };
}

/** Runs `binary --version` with a timeout. */
export function probeVersion(binary: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { timeout: 10_000 }, (error, stdout) => {
      const version = stdout?.toString().trim();
      resolve(error || !version?.startsWith('codegraph') ? undefined : version);
    });
  });
}
