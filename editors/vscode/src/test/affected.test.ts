import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { affectedItems, affectedSummary } from '../affected';

test('affected tests: one item a test with its route, then whole test files', () => {
  const answers = [
    {
      folder: '/repo',
      changed: [{ id: 'pkg/core.py::helper', change: 'body' }],
      tests: [
        {
          id: 'tests/test_api.py::test_load',
          file: 'tests/test_api.py',
          name: 'tests/test_api.py::test_load',
          line: 5,
          confidence: 'proven',
          via: ['pkg/core.py::helper', 'pkg/api.py::load', 'tests/test_api.py::test_load'],
        },
      ],
      test_files: ['tests/test_api.py', 'test/add.test.js'],
    },
  ];
  assert.deepEqual(affectedItems(answers), [
    {
      label: 'tests/test_api.py::test_load',
      description: 'tests/test_api.py:5',
      detail: 'proven: via pkg/core.py::helper → pkg/api.py::load',
      file: 'tests/test_api.py',
      line: 5,
      folder: '/repo',
    },
    {
      label: 'test/add.test.js',
      description: 'whole file',
      detail: 'the file runs its tests as a whole',
      file: 'test/add.test.js',
      line: 1,
      folder: '/repo',
    },
  ]);
  assert.equal(affectedSummary(answers), 'codegraph: 1 changed entities, 2 tests to run.');
});

test('affected tests: nothing changed, and a folder outside git', () => {
  assert.equal(affectedSummary([{ folder: '/a', changed: [], tests: [], test_files: [] }]), 'codegraph: nothing changed since HEAD.');
  assert.equal(
    affectedSummary([{ folder: '/a', error: '/a: not in a git repository' }]),
    'codegraph: /a: /a: not in a git repository',
  );
});
