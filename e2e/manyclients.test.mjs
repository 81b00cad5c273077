// One vault, many clients at once, through the official TypeScript MCP
// client: three `cairn serve` over stdio (the first hosts the vault, the
// others attach to it), one `cairn serve --http`, and the command line
// (`cairn token create`, `cairn search --json`) alongside.
//
// - Each client writes; every other client (get_note, search) and
//   `cairn search` see each write at once: no sleep, no polling.
// - The same compare-and-swap edit sent by all four clients at once has
//   exactly one winner; the others get versionConflict.
// - The host is killed with SIGKILL while the others write in a loop; they
//   carry on (a write answered `unavailable` is re-read, and sent again only
//   if it did not land), every acknowledged write is there exactly once,
//   `git fsck --strict` is clean and nothing is left uncommitted. A stdio
//   server started afterwards attaches and sees everything.
//
// Waits are bounded only so that the test fails instead of hanging; nothing
// here asserts how long anything takes.
//
//   CAIRN_BIN=/path/to/cairn node --test manyclients.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  connectHttp,
  connectStdio,
  createToken,
  describeResult,
  git,
  hostPid,
  makeVault,
  resultData,
  resultText,
  runCairn,
  startHttpServer,
  within,
} from './helpers.mjs';

// Per request: longer than the 30 s a call waits for a new host (so a
// server's own answer arrives first), short enough to fail, not hang.
const REQUEST = { timeout: 35_000 };
const SUITE_TIMEOUT = 120_000;

// The kill: each writer writes NOTES notes (create_note, then edit_note
// append); the host is killed once every writer has KILL_AFTER of them
// acknowledged, so the others keep writing through the takeover.
const NOTES = 8;
const KILL_AFTER = 2;
// A write answered `unavailable` this many times in a row fails the test.
const MAX_ATTEMPTS = 4;

/** Calls a tool through c ({name, client}); a failed request names both. */
async function call(c, name, args = {}) {
  try {
    return await c.client.callTool({ name, arguments: args }, undefined, REQUEST);
  } catch (err) {
    err.message = `${c.name}: ${name} ${JSON.stringify(args)}: ${err.message}`;
    throw err;
  }
}

/** Calls a tool and asserts it succeeded; returns its structured payload. */
async function callOk(c, name, args = {}) {
  const res = await call(c, name, args);
  assert.notEqual(res.isError, true, `${name} ${JSON.stringify(args)} failed:\n${describeResult(res)}`);
  const data = resultData(res);
  assert.ok(data && typeof data === 'object', `${name}: no structured result:\n${describeResult(res)}`);
  return data;
}

/** The ids a lexical search finds for query (limit 50). */
async function searchIds(c, query) {
  const res = await callOk(c, 'search', { query, mode: 'lexical', limit: 50 });
  return res.results.map((r) => r.id);
}

/** `cairn search --json`: the paths it finds for query (lexical, limit 50). */
async function cliSearchPaths(vault, query) {
  const { stdout } = await runCairn(['search', '--vault', vault, '--json', '--mode', 'lexical', '--limit', '50', query]);
  return JSON.parse(stdout).results.map((r) => r.path);
}

const count = (text, word) => text.split(word).length - 1;

/**
 * Asserts that want is found first, and once. Notes whose names number
 * them in one folder ("Seen by all stdio-1", "-2") form a sequence, so a
 * note's neighbours may follow it in the results.
 */
function assertFirstOnce(found, want, message) {
  assert.equal(found[0], want, `${message}: ${JSON.stringify(found)}`);
  assert.equal(found.filter((x) => x === want).length, 1, `${message}: ${JSON.stringify(found)}`);
}

/**
 * Reads a note by ref: its payload, or null when the note does not exist.
 * Any other failure fails the test.
 */
async function readNote(c, ref) {
  const res = await call(c, 'get_note', { ref });
  if (res.isError) {
    assert.match(resultText(res), /not found/, `get_note ${ref}:\n${describeResult(res)}`);
    return null;
  }
  return resultData(res);
}

/**
 * A write the way a careful client makes it while the host may die: an
 * `unavailable` answer with mayHaveRun is followed by reread(), which says
 * whether the write landed ({landed: data}) or gives the arguments to send
 * again ({retry: args}). retryAfterSeconds is not waited out: the re-read
 * itself waits for the next host. Any other error fails the test.
 */
async function carefulWrite(c, tool, args, reread, stats) {
  for (let attempt = 1; ; attempt++) {
    const res = await call(c, tool, args);
    if (res.isError !== true) return resultData(res);
    const sc = res.structuredContent;
    assert.equal(sc?.error, 'unavailable', `${tool} ${JSON.stringify(args)}:\n${describeResult(res)}`);
    assert.equal(sc.mayHaveRun, true, `${tool}: unavailable without mayHaveRun (no host took over):\n${describeResult(res)}`);
    assert.ok(sc.retryAfterSeconds >= 1, describeResult(res));
    assert.ok(attempt < MAX_ATTEMPTS, `${tool}: unavailable ${attempt} times in a row:\n${describeResult(res)}`);
    stats.unavailable++;
    const next = await reread();
    if (next.landed) {
      stats.landedAnyway++;
      return next.landed;
    }
    stats.sentAgain++;
    args = next.retry;
  }
}

/** Deferred: a promise with its resolve. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Writes NOTES notes through one client: create_note, then an append.
 * Resolves reached once KILL_AFTER are acknowledged; returns them all.
 */
async function writeLoop(w, wi, reached, stats) {
  const notes = [];
  for (let i = 0; i < NOTES; i++) {
    const title = `Kill round ${w.name} ${i}`;
    const path = `acme/${title}.md`;
    const cm = `zzk${wi}n${i}c0`;
    const am = `zzk${wi}n${i}a0`;
    const created = await carefulWrite(
      w,
      'create_note',
      { project: 'acme', body: `# ${title}\n\n${cm} killround\n` },
      async () => {
        const n = await readNote(w, path);
        return n ? { landed: { id: n.id, path: n.path, versionToken: n.versionToken } } : { retry: { project: 'acme', body: `# ${title}\n\n${cm} killround\n` } };
      },
      stats,
    );
    assert.equal(created.path, path);
    const edit = (versionToken) => ({ ref: created.id, versionToken, operation: 'append', content: `\n${am}\n` });
    const appended = await carefulWrite(
      w,
      'edit_note',
      edit(created.versionToken),
      async () => {
        const n = await readNote(w, created.id);
        assert.ok(n, `note ${created.id} vanished`);
        return n.content.includes(am) ? { landed: { versionToken: n.versionToken } } : { retry: edit(n.versionToken) };
      },
      stats,
    );
    notes.push({ id: created.id, path, cm, am, versionToken: appended.versionToken, writer: w.name });
    if (notes.length === KILL_AFTER) reached.resolve();
  }
  return notes;
}

describe('one vault, many clients and the command line at once', { timeout: SUITE_TIMEOUT }, () => {
  let vault;
  let http;
  const all = []; // every session opened, closed in after()
  const s = {}; // stdio1..3, http, late: {name, client, pid, closed?}
  let acked = []; // the notes written around the kill

  before(async () => {
    vault = await makeVault();
  });
  after(async () => {
    // Attached servers first, the host last: fewer handovers.
    const host = await hostPid(vault.vault).catch(() => 0);
    for (const session of [...all].sort((a, b) => (a.pid === host) - (b.pid === host))) {
      await session.close().catch(() => {});
    }
    await http?.stop();
    await vault?.cleanup();
  });

  /**
   * The servers' logs for a failure's message: the end of each, or, after
   * a request that got no answer, all of it with the goroutines of every
   * live server (SIGQUIT makes a Go program print them and exit), to tell
   * where the call hung.
   */
  const serverLogs = async (hung) => {
    if (hung) {
      const exits = [];
      for (const c of Object.values(s)) {
        if (c.closed && !c.killed) {
          c.killed = true;
          exits.push(c.closed);
          try {
            process.kill(c.pid, 'SIGQUIT');
          } catch {
            /* already gone */
          }
        }
      }
      if (http && http.proc.exitCode === null && http.proc.signalCode === null) {
        exits.push(new Promise((resolve) => http.proc.once('exit', resolve)));
        http.proc.kill('SIGQUIT');
      }
      await within(10_000, 'the servers print their goroutines', Promise.all(exits)).catch(() => {});
    }
    const tail = (text) => (hung ? text : text.slice(-3000));
    return [
      ...Object.values(s)
        .filter((c) => c.stderr)
        .map((c) => `--- ${c.name} (pid ${c.pid}) stderr:\n${tail(c.stderr())}`),
      http ? `--- http (pid ${http.proc.pid}) output:\n${tail(http.output())}` : '',
    ].join('\n');
  };
  /** An it() body whose failure also shows the servers' logs. */
  const step = (fn) => async (t) => {
    try {
      await fn(t);
    } catch (err) {
      err.message += `\n${await serverLogs(err.code === -32001 || /not done after/.test(err.message))}`;
      throw err;
    }
  };

  const stdio = async (name) => {
    const session = await connectStdio(vault.vault);
    all.push(session);
    return { name, client: session.client, pid: session.pid, closed: session.closed, stderr: session.stderr };
  };

  it('three stdio servers one after the other, one HTTP server: the first stdio server hosts the vault', step(async (t) => {
    s.stdio1 = await stdio('stdio-1');
    // A tool call needs the vault: the only server opens it, so hosts it.
    assert.equal((await callOk(s.stdio1, 'whoami')).principal, 'owner');
    assert.equal(await hostPid(vault.vault), s.stdio1.pid, 'the first server hosts the vault');
    s.stdio2 = await stdio('stdio-2');
    s.stdio3 = await stdio('stdio-3');
    // The command line works on the token file while the servers run.
    const token = await createToken(vault.vault, 'owner', 'write');
    http = await startHttpServer(vault.vault);
    const session = await connectHttp(http.url, token);
    all.push({ ...session, pid: http.proc.pid });
    s.http = { name: 'http', client: session.client, pid: http.proc.pid };
    for (const c of [s.stdio2, s.stdio3, s.http]) {
      assert.equal((await callOk(c, 'whoami')).principal, 'owner', c.name);
    }
    assert.equal(await hostPid(vault.vault), s.stdio1.pid, 'the later servers attached; the first still hosts');
  }));

  it('each client writes; every other client and `cairn search` see each write at once', step(async (t) => {
    const clients = [s.stdio1, s.stdio2, s.stdio3, s.http];
    assert.ok(clients.every(Boolean), 'the servers started');
    const seenByOthers = async (writer, note, marker) => {
      for (const other of clients.filter((c) => c !== writer)) {
        const got = await callOk(other, 'get_note', { ref: note.id });
        assert.equal(got.versionToken, note.versionToken, `${other.name} reads ${writer.name}'s write`);
        assert.ok(got.content.includes(marker), `${other.name}: ${JSON.stringify(got.content)} lacks ${marker}`);
        assertFirstOnce(await searchIds(other, marker), note.id, `${other.name} searches ${marker}`);
      }
      assertFirstOnce(await cliSearchPaths(vault.vault, marker), note.path, `cairn search ${marker}`);
    };
    for (const [i, writer] of clients.entries()) {
      const created = await callOk(writer, 'create_note', { project: 'acme', body: `# Seen by all ${writer.name}\n\nzzseen${i}c0\n` });
      await seenByOthers(writer, created, `zzseen${i}c0`);
      const edited = await callOk(writer, 'edit_note', {
        ref: created.id,
        versionToken: created.versionToken,
        operation: 'append',
        content: `\nzzseen${i}a0\n`,
      });
      await seenByOthers(writer, { ...created, versionToken: edited.versionToken }, `zzseen${i}a0`);
    }
  }));

  it('the same compare-and-swap edit from four clients at once: exactly one wins, the others get versionConflict', step(async (t) => {
    const clients = [s.stdio1, s.stdio2, s.stdio3, s.http];
    const note = await callOk(s.stdio2, 'create_note', { project: 'acme', body: '# Race note\n\nThe start.\n' });
    let token = note.versionToken;
    const ROUNDS = 3;
    for (let round = 0; round < ROUNDS; round++) {
      const lines = clients.map((_, i) => `zzrace${round}x${i}0`);
      const results = await Promise.all(
        clients.map((c, i) => call(c, 'edit_note', { ref: note.id, versionToken: token, operation: 'append', content: `\n${lines[i]}\n` })),
      );
      const winners = results.flatMap((r, i) => (r.isError ? [] : [i]));
      assert.equal(winners.length, 1, `round ${round}: ${winners.length} winners:\n${results.map(describeResult).join('\n')}`);
      const won = resultData(results[winners[0]]);
      for (const [i, r] of results.entries()) {
        if (i === winners[0]) continue;
        assert.equal(r.structuredContent?.error, 'versionConflict', `${clients[i].name}:\n${describeResult(r)}`);
        assert.equal(r.structuredContent.currentVersionToken, won.versionToken, `${clients[i].name} is told the winner's token`);
      }
      const got = await callOk(s.stdio3, 'get_note', { ref: note.id });
      assert.equal(got.versionToken, won.versionToken);
      for (const [i, line] of lines.entries()) {
        assert.equal(count(got.content, line), i === winners[0] ? 1 : 0, `round ${round}: ${line} in ${JSON.stringify(got.content)}`);
      }
      token = won.versionToken;
    }
    // One commit per winner, after the one that created the note.
    const commits = (await git(vault.vault, ['log', '--format=%H', '--', note.path])).trim().split('\n');
    assert.equal(commits.length, 1 + ROUNDS, `commits of ${note.path}: ${commits.join(' ')}`);
  }));

  it('SIGKILL the host while the others write: they carry on, and every acknowledged write is there exactly once', step(async (t) => {
    const writers = [s.stdio2, s.stdio3, s.http];
    const victim = await hostPid(vault.vault);
    assert.equal(victim, s.stdio1.pid, 'stdio-1 still hosts');
    const stats = { unavailable: 0, landedAnyway: 0, sentAgain: 0 };
    const reached = writers.map(() => deferred());
    const loops = writers.map((w, wi) => writeLoop(w, wi, reached[wi], stats));
    // A loop that fails early fails the wait too, instead of blocking it.
    const failed = Promise.all(loops).then(() => new Promise(() => {}));
    await within(60_000, `each writer has ${KILL_AFTER} notes acknowledged`, Promise.race([Promise.all(reached.map((r) => r.promise)), failed]));
    s.stdio1.killed = true;
    process.kill(victim, 'SIGKILL');
    await within(10_000, "the killed server's connection ends", s.stdio1.closed);
    // Its own client is gone with it: that is expected.
    await assert.rejects(call(s.stdio1, 'whoami'));
    acked = (await within(90_000, 'the writers finish', Promise.all(loops))).flat();
    t.diagnostic(`writes answered unavailable ${stats.unavailable}, found landed ${stats.landedAnyway}, sent again ${stats.sentAgain}`);
    assert.equal(acked.length, writers.length * NOTES);

    const newHost = await hostPid(vault.vault);
    assert.ok(
      writers.some((w) => w.pid === newHost),
      `the vault is hosted by ${newHost}, none of the surviving servers ${writers.map((w) => w.pid).join(', ')}`,
    );
    for (const w of writers) {
      for (const n of acked) {
        const got = await callOk(w, 'get_note', { ref: n.id });
        assert.equal(got.versionToken, n.versionToken, `${w.name} reads ${n.path}`);
        assert.equal(count(got.content, n.cm), 1, `${w.name}: ${n.cm} in ${JSON.stringify(got.content)}`);
        assert.equal(count(got.content, n.am), 1, `${w.name}: ${n.am} in ${JSON.stringify(got.content)}`);
      }
    }
    for (const [i, n] of acked.entries()) {
      const w = writers[i % writers.length];
      assertFirstOnce(await searchIds(w, n.cm), n.id, `${w.name} searches ${n.cm}`);
      assertFirstOnce(await searchIds(w, n.am), n.id, `${w.name} searches ${n.am}`);
    }
    // No note twice (a write sent again after it had landed would be).
    const ids = acked.map((n) => n.id).sort();
    for (const w of writers) {
      assert.deepEqual((await searchIds(w, 'killround')).sort(), ids, `${w.name} searches killround`);
    }
    assert.deepEqual((await cliSearchPaths(vault.vault, 'killround')).sort(), acked.map((n) => n.path).sort(), 'cairn search killround');

    await git(vault.vault, ['fsck', '--strict', '--no-progress']);
    assert.equal(await git(vault.vault, ['status', '--porcelain']), '', 'nothing is left uncommitted');
    const inHead = (await git(vault.vault, ['grep', '-h', '-o', '-E', 'zzk[0-9]+n[0-9]+[ca]0', 'HEAD'])).trim().split('\n');
    assert.deepEqual(inHead.sort(), acked.flatMap((n) => [n.cm, n.am]).sort(), 'each write is committed exactly once');
  }));

  it('a stdio server started after the kill attaches to the new host and sees everything', step(async (t) => {
    assert.ok(acked.length > 0, 'the kill test ran first');
    s.late = await stdio('stdio-late');
    assert.equal((await callOk(s.late, 'whoami')).principal, 'owner');
    const hosting = await hostPid(vault.vault);
    assert.ok([s.stdio2, s.stdio3, s.http].some((w) => w.pid === hosting), `the vault is hosted by ${hosting}`);
    assert.notEqual(hosting, s.late.pid, 'the new server attached instead of hosting');
    for (const n of acked) {
      const got = await callOk(s.late, 'get_note', { ref: n.id });
      assert.equal(got.versionToken, n.versionToken, n.path);
    }
    assert.deepEqual((await searchIds(s.late, 'killround')).sort(), acked.map((n) => n.id).sort());
    const created = await callOk(s.late, 'create_note', { project: 'acme', body: '# Written late\n\nzzlate0\n' });
    assertFirstOnce(await searchIds(s.stdio2, 'zzlate0'), created.id, 'stdio-2 searches zzlate0');
    assert.equal((await callOk(s.http, 'get_note', { ref: created.id })).versionToken, created.versionToken);
  }));
});
