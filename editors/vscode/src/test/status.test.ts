import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { documentSelector, LANGUAGE_IDS } from '../languages';
import { startingText, startingTooltip, statusBarText, statusLines } from '../status';

test('status bar: not running, indexing, then the entity count', () => {
  assert.equal(statusBarText(undefined), '$(circle-slash) codegraph');
  assert.equal(statusBarText({ indexing: 1, roots: [] }), '$(sync~spin) codegraph: indexing');
  const status = {
    indexing: 0,
    roots: [
      { root: '/a', files: 12, entities: 1200, revision: 3 },
      { root: '/b', files: 1, entities: 34, revision: 1 },
    ],
  };
  assert.equal(statusBarText(status), '$(type-hierarchy) codegraph: 1,234 entities');
  assert.deepEqual(statusLines(status), ['/a: 12 files, 1200 entities (revision 3)', '/b: 1 files, 34 entities (revision 1)']);
  assert.deepEqual(statusLines({ ...status, indexing: 2 })[0], 'indexing (2 run(s) in flight)');
});

test('status bar while the server has not answered: starting, then for how long', () => {
  assert.equal(startingText(0), '$(sync~spin) codegraph: starting');
  assert.equal(startingText(9), '$(sync~spin) codegraph: starting');
  assert.equal(startingText(12), '$(sync~spin) codegraph: starting (no answer for 12 s)');
  assert.ok(!startingTooltip(3).includes('has not answered'));
  assert.ok(startingTooltip(12).includes('It has not answered for 12 s.'));
  assert.ok(startingTooltip(12).includes('Restart Server'));
});

test('the document selector covers the 17 languages codegraph parses', () => {
  assert.equal(LANGUAGE_IDS.length, 18); // JavaScript and JSX are two VS Code ids.
  assert.deepEqual(documentSelector()[0], { scheme: 'file', language: 'python' });
  assert.ok(LANGUAGE_IDS.includes('csharp') && LANGUAGE_IDS.includes('shellscript'));
});
