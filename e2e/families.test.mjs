// End-to-end tests of the treaisure and hindsight toolsets through the
// official TypeScript MCP client, over Streamable HTTP, as clients written
// for TreAIsure and Hindsight use them: at /mcp and at each family's path.
//
//   CAIRN_BIN=/path/to/cairn node --test families.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { connectHttp, createToken, describeResult, makeVault, resultData, resultText, startHttpServer } from './helpers.mjs';

const REQUEST = { timeout: 15_000 };
const call = (client, name, args = {}) => client.callTool({ name, arguments: args }, undefined, REQUEST);
const names = async (client) => (await client.listTools(undefined, REQUEST)).tools.map((t) => t.name).sort();

describe('treaisure and hindsight over HTTP', { timeout: 120_000 }, () => {
  let vault;
  let server;
  const sessions = [];
  let treaisure;
  let hindsight;
  let hindsightAlice;

  before(async () => {
    vault = await makeVault();
    server = await startHttpServer(vault.vault);
    const open = async (path, token) => {
      const s = await connectHttp(server.url.replace(/\/mcp$/, path), token);
      sessions.push(s);
      return s.client;
    };
    treaisure = await open('/treaisure/mcp', await createToken(vault.vault, 'owner', 'write', ['--toolsets', 'treaisure']));
    hindsight = await open('/mcp', await createToken(vault.vault, 'owner', 'write', ['--toolsets', 'hindsight']));
    hindsightAlice = await open('/hindsight/mcp', await createToken(vault.vault, 'owner', 'write', ['--toolsets', 'hindsight', '--banks', 'alice']));
  });
  after(async () => {
    for (const s of sessions) await s.close();
    await server?.stop();
    await vault?.cleanup();
  });

  it('a TreAIsure token sees exactly the two treaisure tools; a Hindsight token the two hindsight tools', async () => {
    assert.deepEqual(await names(treaisure), ['treaisure_capture_thought', 'treaisure_search_memory']);
    assert.deepEqual(await names(hindsight), ['hindsight_put', 'hindsight_search']);
    assert.deepEqual(await names(hindsightAlice), ['hindsight_put', 'hindsight_search']);
  });

  it('treaisure_capture_thought: pending_confirmation, created, already_exists, rejected', async () => {
    const text = 'Nous lançons d\'abord auprès de vingt clients pilotes.';
    const cap = async (args) => {
      const res = await call(treaisure, 'treaisure_capture_thought', args);
      assert.notEqual(res.isError, true, describeResult(res));
      return resultData(res);
    };
    const p = await cap({ text, space: 'professional' });
    assert.equal(p.status, 'pending_confirmation');
    assert.equal(p.proposal.text, text);
    const c = await cap({ text, space: 'professional', thought_kind: 'thought', confirmed: true });
    assert.equal(c.status, 'created');
    assert.ok(c.id);
    const d = await cap({ text: text.toUpperCase(), space: 'professional', confirmed: true });
    assert.equal(d.status, 'already_exists');
    assert.equal(d.id, c.id);
    for (const [args, why] of [
      [{ text: 'no', space: 'personal', confirmed: true }, /text/],
      [{ text: 'A day', space: 'both', confirmed: true }, /space/],
      [{ text: 'A day', space: 'personal', occurred_at: 'yesterday', confirmed: true }, /occurred_at/],
      [{ text: 'A day', space: 'personal', occurred_at: '2999-01-01', confirmed: true }, /future/],
    ]) {
      const r = await cap(args);
      assert.equal(r.status, 'rejected', JSON.stringify(r));
      assert.match(r.reason, why);
    }
  });

  it('treaisure_search_memory: one space, an evidence dossier with levels', async () => {
    await call(treaisure, 'treaisure_capture_thought', { text: 'Vacances : nous partons à Biarritz avec les enfants.', space: 'personal', confirmed: true });
    const res = await call(treaisure, 'treaisure_search_memory', { question: 'Qu\'avais-je décidé pour les clients pilotes ?', space: 'professional', limit: 6 });
    const dossier = resultData(res);
    assert.ok(dossier.items.length >= 1, JSON.stringify(dossier));
    assert.equal(dossier.items[0].level, 'direct');
    assert.equal(dossier.items[0].explicit, true);
    assert.match(dossier.note, /never present/);
    for (const item of dossier.items) assert.match(item.path, /\/thoughts\/professional\//);
    const personal = resultData(await call(treaisure, 'treaisure_search_memory', { question: 'clients pilotes', space: 'personal' }));
    for (const item of personal.items) assert.match(item.path, /\/thoughts\/personal\//);
    const bad = await call(treaisure, 'treaisure_search_memory', { question: 'x', space: 'everything' });
    assert.equal(bad.isError, true);
    assert.match(resultText(bad), /space/);
  });

  it('hindsight_put then hindsight_search, in Hindsight\'s own words', async () => {
    const put = await call(hindsight, 'hindsight_put', { bank_id: 'alice', content: 'User works at Google as a software engineer', context: 'work_history' });
    assert.notEqual(put.isError, true, describeResult(put));
    assert.equal(resultText(put), 'Fact stored successfully');
    await call(hindsight, 'hindsight_put', { bank_id: 'bob', content: 'Bob keeps bees on his roof', context: 'hobbies', explanation: 'said so' });
    const res = await call(hindsightAlice, 'hindsight_search', { bank_id: 'alice', query: 'What does the user do for work?' });
    const body = JSON.parse(resultText(res));
    assert.equal(body.results[0].text, 'User works at Google as a software engineer');
    assert.deepEqual(Object.keys(body.results[0]).sort(), ['context', 'document_id', 'event_date', 'id', 'text', 'type']);
    assert.ok(['world', 'experience', 'opinion'].includes(body.results[0].type));
  });

  it('hindsight: a bank the token may not reach reads exactly like a missing one', async () => {
    for (const bank of ['bob', 'nobody']) {
      const res = await call(hindsightAlice, 'hindsight_search', { bank_id: bank, query: 'bees' });
      assert.equal(res.isError, true);
      assert.equal(resultText(res), `Error: Memory bank '${bank}' not found`);
    }
    const put = await call(hindsightAlice, 'hindsight_put', { bank_id: 'bob', content: 'x y z', context: 'c' });
    assert.equal(put.isError, true);
    assert.equal(resultText(put), "Error: Memory bank 'bob' not found");
    const bad = await call(hindsight, 'hindsight_put', { bank_id: 'alice', content: '', context: 'c' });
    assert.equal(bad.isError, true);
    assert.match(resultText(bad), /^Error: .*content/);
  });
});
