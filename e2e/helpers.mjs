// Helpers for cairn's end-to-end tests: they drive a cairn binary built
// elsewhere (CAIRN_BIN) through the official TypeScript MCP client.
//
// Nothing here builds cairn. Each helper makes its own temporary vault,
// tokens and server process, and cleans up after itself.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(E2E_DIR, '..');
export const SAMPLE_VAULT = path.join(REPO_ROOT, 'sample-vault');

const CLIENT_INFO = { name: 'cairn-e2e', version: '0.0.0' };

/** The cairn binary under test, from CAIRN_BIN (required). */
export function cairnBin() {
  const bin = process.env.CAIRN_BIN;
  if (!bin) {
    throw new Error(
      'CAIRN_BIN is not set: build cairn first and point CAIRN_BIN at it, e.g.\n' +
        '  (cd .. && go build -o /tmp/cairn-e2e ./cmd/cairn) && CAIRN_BIN=/tmp/cairn-e2e node --test',
    );
  }
  const abs = path.resolve(bin);
  try {
    accessSync(abs, fsConstants.X_OK);
  } catch {
    throw new Error(`CAIRN_BIN=${bin}: no executable file there (${abs})`);
  }
  return abs;
}

/** Runs `cairn ARGS...` to completion; resolves with {stdout, stderr}. */
export function runCairn(args, { timeoutMs = 30_000 } = {}) {
  const bin = cairnBin();
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) {
        err.message = `cairn ${args.join(' ')} failed: ${err.message}\nstdout: ${stdout}\nstderr: ${stderr}`;
        reject(err);
        return;
      }
      resolve({ stdout, stderr });
    });
  });
}

/**
 * A fresh vault initialised from the repo's sample-vault in a new temp dir.
 * Returns {dir, vault, cleanup}.
 */
export async function makeVault() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-e2e-'));
  const vault = path.join(dir, 'vault');
  try {
    await runCairn(['init', '--from', SAMPLE_VAULT, vault]);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { dir, vault, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Creates a personal access token; cairn prints it alone on one line. */
export async function createToken(vault, principal, scope, extra = []) {
  const { stdout } = await runCairn(['token', 'create', '--vault', vault, '--principal', principal, '--scope', scope, ...extra]);
  const lines = stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length !== 1) {
    throw new Error(`cairn token create: expected the token alone on one line, got ${JSON.stringify(stdout)}`);
  }
  return lines[0];
}

/** Runs `cairn ARGS...` with input on its standard input. */
export function runCairnWithInput(args, input, { timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(cairnBin(), args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`cairn ${args.join(' ')} exited ${code}\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
    proc.stdin.end(input);
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `cairn serve --vault V --http 127.0.0.1:PORT [extraArgs...]` and
 * waits (up to 10 s) until the port accepts connections. extraArgs may be
 * a function of the port (for flags that name it, like --public-url);
 * env adds to the process's environment.
 * Returns {port, url, proc, output(), stop()}; url is http://127.0.0.1:PORT/mcp.
 */
export async function startHttpServer(vault, extraArgs = [], { env = {} } = {}) {
  const bin = cairnBin();
  const port = await freePort();
  const extra = typeof extraArgs === 'function' ? extraArgs(port) : extraArgs;
  const args = ['serve', '--vault', vault, '--http', `127.0.0.1:${port}`, ...extra];
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  let exited = null;
  const exitPromise = new Promise((resolve) => {
    proc.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });
  proc.once('error', (err) => {
    output += `\nspawn error: ${err.message}`;
  });

  const stop = async () => {
    if (exited) return exited;
    proc.kill('SIGTERM');
    const res = await Promise.race([exitPromise, sleep(5_000).then(() => null)]);
    if (res) return res;
    proc.kill('SIGKILL');
    return exitPromise;
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) {
      throw new Error(`cairn ${args.join(' ')} exited early (${JSON.stringify(exited)}):\n${output}`);
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`cairn ${args.join(' ')}: port ${port} not accepting connections after 10 s:\n${output}`);
    }
    await sleep(100);
  }
  return { port, url: `http://127.0.0.1:${port}/mcp`, proc, output: () => output, stop };
}

/**
 * Connects the official MCP client to `cairn serve --vault V` over stdio
 * (the local owner, no token). Returns {client, transport, pid, closed,
 * stderr(), close()}: pid is the server process's, and closed resolves
 * once the connection has ended (the process exited or was closed).
 */
export async function connectStdio(vault) {
  const transport = new StdioClientTransport({
    command: cairnBin(),
    args: ['serve', '--vault', vault],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client(CLIENT_INFO);
  const closed = new Promise((resolve) => {
    client.onclose = resolve;
  });
  await client.connect(transport);
  return { client, transport, pid: transport.pid, closed, stderr: () => stderr, close: () => client.close() };
}

/**
 * The pid in the vault's host lock (.cairn/cache/host.lock): the process
 * hosting the vault, or a command holding it; 0 when there is none.
 */
export async function hostPid(vault) {
  try {
    return Number.parseInt((await readFile(path.join(vault, '.cairn', 'cache', 'host.lock'), 'utf8')).trim(), 10) || 0;
  } catch (err) {
    if (err.code === 'ENOENT') return 0;
    throw err;
  }
}

/**
 * Runs `git -C DIR ARGS...` to completion; resolves with its stdout. It
 * never takes git's optional locks (a plain `git status` may rewrite the
 * index, which a cairn process may be committing to).
 */
export function git(dir, args, { timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile('git', ['--no-optional-locks', '-C', dir, ...args], { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) {
        err.message = `git ${args.join(' ')} failed: ${err.message}\nstdout: ${stdout}\nstderr: ${stderr}`;
        reject(err);
        return;
      }
      resolve(stdout);
    });
  });
}

/**
 * Resolves as promise does, or rejects after ms naming what was awaited:
 * a bound on a wait so a test fails instead of hanging (not a timing
 * assertion).
 */
export function within(ms, what, promise) {
  let timer;
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done after ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/**
 * Connects the official MCP client to a running cairn over Streamable HTTP,
 * with `Authorization: Bearer TOKEN` on every request.
 */
export async function connectHttp(url, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return {
    client,
    transport,
    close: async () => {
      // Best effort: end the session (DELETE), then close the transport.
      try {
        await transport.terminateSession();
      } catch {
        /* the server may not support it; not under test here */
      }
      await client.close();
    },
  };
}

/** The text of a tool result's text content blocks, joined. */
export function resultText(result) {
  return (result?.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/**
 * The structured payload of a tool result: structuredContent when present,
 * else the JSON of its text content, else undefined.
 */
export function resultData(result) {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(resultText(result));
  } catch {
    return undefined;
  }
}

/** A short description of a tool result for assertion messages. */
export function describeResult(result) {
  return JSON.stringify(result, null, 2).slice(0, 2000);
}
