/**
 * The answer of the server's `codegraph.affectedTests` command, one entry per workspace folder,
 * turned into the items the "Show Tests Affected by My Changes" picker lists. No VS Code here.
 */

/** One folder's answer, as `codegraph affected --json` prints it (the fields read here). */
export interface FolderAnswer {
  folder: string;
  error?: string;
  changed?: { id: string; change: string }[];
  tests?: { id: string; file: string; name: string; line: number; confidence: string; via: string[] }[];
  test_files?: string[];
}

/** A picker item: a test, or a test file run whole. */
export interface AffectedItem {
  label: string;
  description: string;
  detail: string;
  /** The folder-relative file and the one-based line to open. */
  file: string;
  line: number;
  folder: string;
}

/** The picker's items, tests first, then the test files with no single test listed. */
export function affectedItems(answers: FolderAnswer[]): AffectedItem[] {
  const items: AffectedItem[] = [];
  for (const answer of answers) {
    const tests = answer.tests ?? [];
    for (const test of tests) {
      const route = test.via.length > 1 ? `via ${test.via.slice(0, -1).join(' → ')}` : 'changed';
      items.push({
        label: test.name,
        description: `${test.file}:${test.line}`,
        detail: `${test.confidence}: ${route}`,
        file: test.file,
        line: test.line,
        folder: answer.folder,
      });
    }
    for (const file of answer.test_files ?? []) {
      if (!tests.some((test) => test.file === file)) {
        items.push({ label: file, description: 'whole file', detail: 'the file runs its tests as a whole', file, line: 1, folder: answer.folder });
      }
    }
  }
  return items;
}

/** One line for the user when there is nothing to pick: no change, or why there is no answer. */
export function affectedSummary(answers: FolderAnswer[]): string {
  const errors = answers.filter((answer) => answer.error).map((answer) => `${answer.folder}: ${answer.error}`);
  if (errors.length > 0 && errors.length === answers.length) {
    return `codegraph: ${errors.join('; ')}`;
  }
  const changed = answers.reduce((sum, answer) => sum + (answer.changed?.length ?? 0), 0);
  const tests = affectedItems(answers).length;
  if (changed === 0) {
    return 'codegraph: nothing changed since HEAD.';
  }
  return `codegraph: ${changed} changed entities, ${tests === 0 ? 'no test reaches them' : `${tests} tests to run`}.`;
}
