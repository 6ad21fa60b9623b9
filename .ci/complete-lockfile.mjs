// The registry this project installs from serves only the linux-x64 binaries of @uwsjs/core and of
// litesvm (a development dependency: the local chain runs Token-2022 in it), so `npm install`
// leaves the other platforms out of package-lock.json and `npm ci` then refuses the lock. This adds
// the missing optional entries (skipped on other platforms at install time).
// Run after any `npm install`: node .ci/complete-lockfile.mjs package-lock.json
import { readFileSync, writeFileSync } from 'node:fs';
const file = process.argv[2];
const lock = JSON.parse(readFileSync(file, 'utf8'));
const core = Object.entries(lock.packages).find(([, p]) => p.name === '@uwsjs/core')?.[1];
let added = 0;
for (const name of Object.keys(core.optionalDependencies)) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [, os, cpu, node] = /^@uwsjs\/(darwin|linux|win32)-(x64|arm64|arm)-(\d+)$/.exec(name);
  lock.packages[key] = {
    version: core.optionalDependencies[name],
    cpu: [cpu],
    license: 'Apache-2.0',
    optional: true,
    os: [os],
    engines: { node: `>=${node}.0.0 <${Number(node) + 1}.0.0` },
  };
  added++;
}
// litesvm-<os>-<cpu>[-gnu|-musl]: same version as litesvm, a development dependency like it.
const litesvm = lock.packages['node_modules/litesvm'];
for (const [name, version] of Object.entries(litesvm?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [, os, cpu, libc] = /^litesvm-(darwin|linux|win32)-(x64|arm64)(?:-(gnu|musl|msvc))?$/.exec(name);
  lock.packages[key] = {
    version,
    cpu: [cpu],
    dev: true,
    ...(libc === 'gnu' ? { libc: ['glibc'] } : libc === 'musl' ? { libc: ['musl'] } : {}),
    license: 'MIT',
    optional: true,
    os: [os],
    engines: { node: '>= 20' },
  };
  added++;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform entries`);
