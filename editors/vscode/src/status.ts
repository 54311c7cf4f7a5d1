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
