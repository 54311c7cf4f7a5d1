/** The answer of the server's `codegraph/status` request, and how the extension shows it. */

export interface StatusRoot {
  root: string;
  files: number;
  entities: number;
  revision: number;
}

export interface Status {
  indexing: number;
  roots: StatusRoot[];
}

/** The status bar text: indexing, else the entity count. */
export function statusBarText(status: Status | undefined): string {
  if (!status) {
    return '$(circle-slash) codegraph';
  }
  if (status.indexing > 0) {
    return '$(sync~spin) codegraph: indexing';
  }
  const entities = status.roots.reduce((sum, root) => sum + root.entities, 0);
  return `$(type-hierarchy) codegraph: ${entities.toLocaleString('en-US')} entities`;
}

/** How long a server may take to answer `initialize` before the status bar says so. */
export const SLOW_START_SECONDS = 10;

/** The status bar text while the server has not answered `initialize` (it indexes first). */
export function startingText(seconds: number): string {
  return seconds < SLOW_START_SECONDS
    ? '$(sync~spin) codegraph: starting'
    : `$(sync~spin) codegraph: starting (no answer for ${seconds} s)`;
}

export function startingTooltip(seconds: number): string {
  const waited = seconds < SLOW_START_SECONDS ? '' : ` It has not answered for ${seconds} s.`;
  return `codegraph is starting (indexing the workspace).${waited} "codegraph: Restart Server" ends it and starts a new one; the codegraph output panel has its log.`;
}

/** One line per workspace folder (the tooltip and "Show Statistics"). */
export function statusLines(status: Status): string[] {
  const lines = status.roots.map(
    (root) => `${root.root}: ${root.files} files, ${root.entities} entities (revision ${root.revision})`,
  );
  if (status.indexing > 0) {
    lines.unshift(`indexing (${status.indexing} run(s) in flight)`);
  }
  return lines;
}
