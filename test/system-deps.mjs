#!/usr/bin/env node
// The first step of `npm test`: makes sure the machine has the two programs the end-to-end tests
// drive besides Node — Debian's Chromium (the real-browser tests) and Debian's nginx (the reverse
// proxy in front of the gate) — and that Redis answers on 127.0.0.1:6379.
//
// Why install from Debian instead of a registry package: neither has a registry package that ships
// its own binary and runs here. Browser packages (playwright, puppeteer) download their browser
// from a CDN at install time, which this kind of machine cannot reach; nginx has no npm package at
// all. Debian's packages come from a registry the machine does reach, are the builds the project's
// machines were checked with, and are what an operator would run in production.
//
// What it does: nothing when both are present. Otherwise, as root with apt-get (a fresh machine of
// the project's kind), `apt-get install chromium nginx`. Not root: it prints the one command to run and fails, rather than skipping tests.
// Redis stays the machine's: it is checked, never installed or started (.ci/run starts it).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NGINX_CANDIDATES = [process.env.NGINX_PATH, '/usr/sbin/nginx', '/usr/bin/nginx'].filter(Boolean);
const say = (line) => process.stderr.write(`[test setup] ${line}\n`);

function missingPackages() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push('chromium');
  if (!NGINX_CANDIDATES.some((path) => existsSync(path))) missing.push('nginx');
  return missing;
}

function install(packages) {
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    say(`missing ${packages.join(' and ')}, which the end-to-end tests drive.`);
    say(`install ${packages.length > 1 ? 'them' : 'it'} and run npm test again:  sudo apt-get install -y ${packages.join(' ')}`);
    say(`(or point CHROMIUM_PATH / NGINX_PATH at existing binaries)`);
    process.exit(1);
  }
  say(`installing ${packages.join(' ')} from Debian's packages (once; about a minute)…`);
  // The tests run their own nginx processes, on random ports, with their own configuration.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Acquire::Retries: a mirror that drops a download half-way is asked again, not fatal.
  const retries = ['-o', 'Acquire::Retries=5'];
  execFileSync('apt-get', [...retries, 'update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', [...retries, 'install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  const still = missingPackages();
  if (still.length > 0) {
    say(`apt-get finished but ${still.join(' and ')} is still missing`);
    process.exit(1);
  }
}

function redisAnswers() {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: 6379 });
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

const missing = missingPackages();
if (missing.length > 0) install(missing);
if (!(await redisAnswers())) {
  say('Redis does not answer on 127.0.0.1:6379; the scale-out tests need it.');
  say('start it, e.g.: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no');
  process.exit(1);
}
