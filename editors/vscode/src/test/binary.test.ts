import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { candidates, findBinary, LookupOptions } from '../binary';

function options(overrides: Partial<LookupOptions>, runs: Record<string, string>): LookupOptions {
  return {
    extensionPath: '/ext',
    pathVariable: '/usr/local/bin:/usr/bin',
    platform: 'linux',
    probe: async (binary) => runs[binary],
    ...overrides,
  };
}

test('the setting wins and is the only candidate', async () => {
  const lookup = options({ setting: ' /opt/codegraph ' }, { '/opt/codegraph': 'codegraph 0.1.0', '/ext/bin/codegraph': 'codegraph 0.0.9' });
  assert.deepEqual(candidates(lookup), [{ path: '/opt/codegraph', source: 'setting' }]);
  assert.deepEqual(await findBinary(lookup), { path: '/opt/codegraph', source: 'setting', version: 'codegraph 0.1.0' });
});

test('a setting that does not run is an error naming it, not a fallback', async () => {
  const lookup = options({ setting: '/opt/missing' }, { '/usr/bin/codegraph': 'codegraph 0.1.0' });
  assert.deepEqual(await findBinary(lookup), {
    error:
      'codegraph: `/opt/missing --version` (the setting codegraph.server.path) does not run. Install the codegraph extension package for your platform (codegraph-linux-x64-<version>.vsix has the binary inside), or install codegraph from a clone with `cargo install --locked --path .` and set `codegraph.server.path` if it is not on PATH.',
  });
});

test('then the bundled binary, then PATH in order', async () => {
  const lookup = options({}, { '/usr/bin/codegraph': 'codegraph 0.1.0' });
  assert.deepEqual(candidates(lookup), [
    { path: '/ext/bin/codegraph', source: 'bundled' },
    { path: '/usr/local/bin/codegraph', source: 'PATH' },
    { path: '/usr/bin/codegraph', source: 'PATH' },
  ]);
  assert.deepEqual(await findBinary(lookup), { path: '/usr/bin/codegraph', source: 'PATH', version: 'codegraph 0.1.0' });
  const bundled = options({}, { '/ext/bin/codegraph': 'codegraph 0.1.0', '/usr/bin/codegraph': 'codegraph 0.1.0' });
  assert.deepEqual(await findBinary(bundled), { path: '/ext/bin/codegraph', source: 'bundled', version: 'codegraph 0.1.0' });
});

test('windows: codegraph.exe and ; separated PATH', () => {
  const lookup = options({ extensionPath: 'C:\\ext', pathVariable: 'C:\\bin;D:\\tools', platform: 'win32' }, {});
  assert.deepEqual(
    candidates(lookup).map((candidate) => candidate.path),
    ['C:\\ext\\bin\\codegraph.exe', 'C:\\bin\\codegraph.exe', 'D:\\tools\\codegraph.exe'],
  );
});

test('nothing found: one message with the install command', async () => {
  assert.deepEqual(await findBinary(options({ pathVariable: undefined }, {})), {
    error:
      'codegraph: the codegraph binary was not found (bundled or on PATH). Install the codegraph extension package for your platform (codegraph-linux-x64-<version>.vsix has the binary inside), or install codegraph from a clone with `cargo install --locked --path .` and set `codegraph.server.path` if it is not on PATH.',
  });
});
