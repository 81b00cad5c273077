// End-to-end tests of cairn's gateway tools through the official TypeScript
// MCP client (@modelcontextprotocol/sdk), over stdio and Streamable HTTP.
//
//   CAIRN_BIN=/path/to/cairn node --test gateway.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  connectHttp,
  connectStdio,
  createToken,
  describeResult,
  makeVault,
  resultData,
  resultText,
  startHttpServer,
} from './helpers.mjs';

const READ_TOOLS = ['whoami', 'get_my_projects', 'list_notes', 'get_note', 'search', 'recall'];
const WRITE_TOOLS = ['create_note', 'edit_note', 'delete_note'];
const GATEWAY_TOOLS = [...READ_TOOLS, ...WRITE_TOOLS];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

const NOTE_BODY = '# E2E note\n\nHello from the TypeScript client.';
const HEX40 = /^[0-9a-f]{40}$/;

const SUITE_TIMEOUT = 120_000;
// Per request: a server that never answers fails fast instead of at the
// SDK's 60 s default.
const REQUEST = { timeout: 15_000 };

/** Calls a tool; returns the result (which may carry isError). */
function call(client, name, args = {}) {
  return client.callTool({ name, arguments: args }, undefined, REQUEST);
}

function listTools(client) {
  return client.listTools(undefined, REQUEST);
}

/** Calls a tool and asserts it succeeded; returns its structured payload. */
async function callOk(client, name, args = {}) {
  const res = await call(client, name, args);
  assert.notEqual(res.isError, true, `${name} ${JSON.stringify(args)} failed:\n${describeResult(res)}`);
  const data = resultData(res);
  assert.ok(data && typeof data === 'object', `${name}: no structured result:\n${describeResult(res)}`);
  return data;
}

/** Calls a tool and asserts it failed with isError; returns its text. */
async function callErr(client, name, args = {}) {
  const res = await call(client, name, args);
  assert.equal(res.isError, true, `${name} ${JSON.stringify(args)} should fail:\n${describeResult(res)}`);
  return { res, text: resultText(res) };
}

/**
 * The full read/write flow, for a session with write access as `owner`.
 * `open` resolves to {client, close} and runs in before().
 */
function fullAccessFlow(open, { principal = 'owner' } = {}) {
  let session;
  let client;
  const state = {};

  before(async () => {
    session = await open();
    client = session.client;
  });
  after(async () => {
    await session?.close();
  });

  it('lists the gateway tools, each with all four annotations as booleans', async () => {
    const { tools } = await listTools(client);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of GATEWAY_TOOLS) {
      assert.ok(byName.has(name), `tool ${name} missing from tools/list: ${[...byName.keys()].join(', ')}`);
    }
    for (const t of tools) {
      assert.ok(t.annotations, `tool ${t.name} has no annotations`);
      for (const h of HINTS) {
        assert.equal(typeof t.annotations[h], 'boolean', `tool ${t.name}: annotations.${h} is ${JSON.stringify(t.annotations[h])}, not a boolean`);
      }
    }
    assert.equal(byName.get('delete_note').annotations.destructiveHint, true, 'delete_note destructiveHint');
    assert.equal(byName.get('edit_note').annotations.destructiveHint, true, 'edit_note destructiveHint (replace rewrites the body)');
    for (const name of READ_TOOLS) {
      assert.equal(byName.get(name).annotations.readOnlyHint, true, `${name} readOnlyHint`);
      assert.equal(byName.get(name).annotations.destructiveHint, false, `${name} destructiveHint`);
    }
    for (const name of WRITE_TOOLS) {
      assert.equal(byName.get(name).annotations.readOnlyHint, false, `${name} readOnlyHint`);
    }
  });

  // The client checks every reply of a tool with an outputSchema against it
  // (and fails the call on a mismatch), so each call in these tests is also
  // a check of the schema it declares.
  it('every tool declares an outputSchema, an object (Hindsight\'s answer in text, as Hindsight does)', async () => {
    const { tools } = await listTools(client);
    for (const t of tools) {
      if (t.name.startsWith('hindsight_')) {
        assert.equal(t.outputSchema, undefined, `${t.name}: a text-only tool with an outputSchema`);
        continue;
      }
      assert.equal(t.outputSchema?.type, 'object', `tool ${t.name}: outputSchema ${JSON.stringify(t.outputSchema)}`);
      assert.ok(Object.keys(t.outputSchema.properties ?? {}).length > 0, `tool ${t.name}: outputSchema names no property`);
    }
    assert.ok(tools.find((t) => t.name === 'search').outputSchema.properties.results, 'search: results in its outputSchema');
  });

  it('whoami: the owner with a write ceiling', async () => {
    const me = await callOk(client, 'whoami');
    assert.equal(me.principal, principal);
    assert.equal(me.ceiling, 'write');
  });

  it('results carry structuredContent and the same JSON as text', async () => {
    const res = await call(client, 'whoami');
    assert.ok(res.structuredContent, `whoami: no structuredContent:\n${describeResult(res)}`);
    assert.deepEqual(JSON.parse(resultText(res)), res.structuredContent);
  });

  it('get_my_projects: acme, acme/launch, acme/platform', async () => {
    const { projects } = await callOk(client, 'get_my_projects');
    assert.ok(Array.isArray(projects), 'projects is an array');
    const handles = projects.map((p) => p.handle);
    for (const h of ['acme', 'acme/launch', 'acme/platform']) {
      assert.ok(handles.includes(h), `project ${h} missing: ${handles.join(', ')}`);
    }
  });

  it('list_notes: the acme/launch folder lists its decisions subfolder', async () => {
    const out = await callOk(client, 'list_notes', { project: 'acme/launch' });
    assert.ok(Array.isArray(out.entries), `entries is an array: ${JSON.stringify(out).slice(0, 500)}`);
    const folder = out.entries.find((e) => e.path === 'acme/launch/decisions');
    assert.ok(folder, `no entry acme/launch/decisions: ${JSON.stringify(out.entries.map((e) => e.path))}`);
    assert.equal(folder.kind, 'folder');
  });

  it('create_note: returns id, path and versionToken', async () => {
    const out = await callOk(client, 'create_note', { project: 'acme/launch', body: NOTE_BODY, tags: ['e2e'] });
    assert.equal(typeof out.id, 'string');
    assert.equal(out.id.length, 26, `id ${out.id} is not 26 characters`);
    assert.equal(out.path, 'acme/launch/E2E note.md');
    assert.match(out.versionToken, HEX40);
    state.id = out.id;
    state.v1 = out.versionToken;
  });

  it('get_note: the content and the same versionToken', async () => {
    assert.ok(state.id, 'create_note ran first');
    const note = await callOk(client, 'get_note', { ref: state.id });
    assert.ok(note.content.includes('Hello from the TypeScript client'), `content: ${JSON.stringify(note.content)}`);
    assert.equal(note.versionToken, state.v1);
    assert.equal(note.id, state.id);
  });

  it('edit_note append: a new versionToken; the stale one then gives versionConflict', async () => {
    assert.ok(state.v1, 'create_note ran first');
    const out = await callOk(client, 'edit_note', { ref: state.id, versionToken: state.v1, operation: 'append', content: 'More.' });
    assert.match(out.versionToken, HEX40);
    assert.notEqual(out.versionToken, state.v1);
    state.v2 = out.versionToken;

    const note = await callOk(client, 'get_note', { ref: state.id });
    assert.ok(note.content.includes('More.'), `appended text missing: ${JSON.stringify(note.content)}`);
    assert.equal(note.versionToken, state.v2);

    const { res, text } = await callErr(client, 'edit_note', {
      ref: state.id,
      versionToken: state.v1,
      operation: 'append',
      content: 'Stale write.',
    });
    assert.ok(text.includes('versionConflict'), `text: ${text}`);
    assert.ok(res.structuredContent, `no structuredContent on the conflict:\n${describeResult(res)}`);
    assert.equal(res.structuredContent.currentVersionToken, state.v2);

    const latest = await callOk(client, 'get_note', { ref: state.id });
    assert.ok(!latest.content.includes('Stale write.'), 'the stale edit was not written');
  });

  it('create_note without a leading H1: error naming body', async () => {
    const { text } = await callErr(client, 'create_note', { project: 'acme/launch', body: 'No heading here.\n' });
    assert.match(text, /\bbody\b/, `text: ${text}`);
  });

  it('create_note with an unknown argument: error naming it, nothing written', async () => {
    const { text } = await callErr(client, 'create_note', {
      project: 'acme/launch',
      body: '# Bogus argument note\n\nShould not be written.',
      bogus: 1,
    });
    assert.match(text, /\bbogus\b/, `text: ${text}`);
    await callErr(client, 'get_note', { ref: 'acme/launch/Bogus argument note.md' });
  });

  it('create_notes, link, rename_note, move_note and get_note detailed keep links resolving', async () => {
    const batch = await callOk(client, 'create_notes', {
      project: 'acme/launch',
      notes: [{ body: '# E2E alpha\n\nSee [[E2E beta]].' }, { body: '# E2E beta\n\nBack to [[E2E alpha]].' }, { body: 'no title' }],
    });
    assert.deepEqual(batch.results.map((r) => r.status), ['ok', 'ok', 'error']);
    assert.match(batch.results[2].error, /notes\[2\]\.body/);
    const alpha = batch.results[0].id;
    const linked = await callOk(client, 'link', { from: alpha, to: '[[Pricing]]', type: 'depends_on' });
    assert.equal(linked.results[0].status, 'created');
    const again = await callOk(client, 'link', { from: alpha, to: '[[Pricing]]', type: 'depends_on' });
    assert.equal(again.results[0].status, 'unchanged');
    await callOk(client, 'rename_note', { ref: '[[E2E beta]]', title: 'E2E gamma' });
    await callOk(client, 'move_note', { ref: alpha, toPath: 'acme/launch/specs' });
    const note = await callOk(client, 'get_note', { ref: alpha, detailed: true });
    assert.equal(note.path, 'acme/launch/specs/E2E alpha.md');
    const out = note.links.outgoing.filter((l) => l.status === 'resolved').map((l) => `${l.type}:${l.to.title}`);
    assert.deepEqual(out.sort(), ['depends_on:Pricing', 'links_to:E2E gamma']);
    assert.ok(note.links.incoming.some((l) => l.from.title === 'E2E gamma'), JSON.stringify(note.links.incoming));
    const { text } = await callErr(client, 'move_note', { ref: alpha, toPath: 'acme/infra' });
    assert.match(text, /toPath/);
  });

  it('search: finds the note written a moment ago, with a Markdown snippet and each list\'s rank', async () => {
    assert.ok(state.id, 'create_note ran first');
    const res = await callOk(client, 'search', { query: 'hello from the TypeScript client', limit: 5, explain: true });
    assert.equal(res.mode, 'hybrid');
    const hit = res.results.find((r) => r.id === state.id);
    assert.ok(hit, `the new note is not found: ${JSON.stringify(res.results.map((r) => r.path))}`);
    assert.equal(res.results[0].id, state.id, 'the new note should rank first');
    assert.match(hit.snippet, /\*\*TypeScript\*\*/);
    assert.equal(hit.lexical.rank, 1);
    assert.ok(hit.semantic && hit.semantic.rank >= 1, JSON.stringify(hit));
    const fr = await callOk(client, 'search', { query: 'decision region hebergement', mode: 'lexical', project: 'acme' });
    assert.match(fr.results[0].title, /^Décision région/);
    assert.equal(fr.results[0].lexical, undefined, 'ranks only with explain');
  });

  it('search: a bad argument is an error naming it', async () => {
    assert.match((await callErr(client, 'search', { query: 'x', mode: 'fuzzy' })).text, /mode/);
    assert.match((await callErr(client, 'search', { query: 'x', after: 'yesterday' })).text, /after/);
    assert.match((await callErr(client, 'search', { query: 'x', limit: 500 })).text, /limit/);
  });

  it('recall: a reply within budgetTokens + 40, each excerpt with its source', async () => {
    const res = await callOk(client, 'recall', { topic: 'How do we roll back a bad deploy?', budgetTokens: 300 });
    assert.ok(res.usedTokens > 0 && res.usedTokens <= 340, `usedTokens ${res.usedTokens}`);
    assert.equal(res.tokenizer, 'o200k_base');
    assert.ok(res.items.length > 0);
    res.items.forEach((it, i) => {
      assert.ok(it.id && it.path && it.excerpt === undefined, JSON.stringify(it));
      assert.ok(res.context.includes(`## ${it.title} [${i + 1}]\n`), `no block for ${it.path}`);
    });
    assert.match((await callErr(client, 'recall', { topic: 'x', budgetTokens: 10 })).text, /budgetTokens/);
  });

  it('delete_note: moves to the trash; get_note then fails', async () => {
    assert.ok(state.id, 'create_note ran first');
    const out = await callOk(client, 'delete_note', { ref: state.id });
    assert.ok(out.trashId, `no trashId: ${JSON.stringify(out)}`);
    await callErr(client, 'get_note', { ref: state.id });
  });
}

describe('stdio: local owner, no token', { timeout: SUITE_TIMEOUT }, () => {
  // One hook pair: the server process must have exited (it writes its
  // caches on the way out) before its vault is removed.
  fullAccessFlow(async () => {
    const vault = await makeVault();
    let session;
    try {
      session = await connectStdio(vault.vault);
    } catch (err) {
      await vault.cleanup();
      throw err;
    }
    return {
      client: session.client,
      close: async () => {
        await session.close();
        await vault.cleanup();
      },
    };
  });
});

describe('Streamable HTTP', { timeout: SUITE_TIMEOUT }, () => {
  let vault;
  let server;
  const tokens = {};

  before(async () => {
    vault = await makeVault();
    tokens.write = await createToken(vault.vault, 'owner', 'write');
    tokens.read = await createToken(vault.vault, 'owner', 'read');
    assert.notEqual(tokens.write, tokens.read);
    server = await startHttpServer(vault.vault);
  });
  after(async () => {
    await server?.stop();
    await vault?.cleanup();
  });

  describe('write token for owner', () => {
    fullAccessFlow(() => connectHttp(server.url, tokens.write));
  });

  describe('read token for owner', () => {
    let session;
    let client;
    const TITLE = 'Read token attempt';

    before(async () => {
      session = await connectHttp(server.url, tokens.read);
      client = session.client;
    });
    after(async () => {
      await session?.close();
    });

    it('whoami: a read ceiling', async () => {
      const me = await callOk(client, 'whoami');
      assert.equal(me.principal, 'owner');
      assert.equal(me.ceiling, 'read');
    });

    it('lists the read tools and none of the write tools', async () => {
      const { tools } = await listTools(client);
      const names = tools.map((t) => t.name);
      for (const name of READ_TOOLS) assert.ok(names.includes(name), `${name} missing: ${names.join(', ')}`);
      for (const name of WRITE_TOOLS) assert.ok(!names.includes(name), `${name} listed for a read token`);
    });

    it('create_note anyway: refused, and nothing is written', async () => {
      let refused = false;
      let detail;
      try {
        const res = await call(client, 'create_note', { project: 'acme/launch', body: `# ${TITLE}\n\nMust not exist.` });
        refused = res.isError === true;
        detail = describeResult(res);
      } catch (err) {
        // A JSON-RPC error (e.g. unknown tool) is a refusal too.
        refused = true;
        detail = String(err);
      }
      assert.ok(refused, `create_note with a read token was not refused:\n${detail}`);

      await callErr(client, 'get_note', { ref: `acme/launch/${TITLE}.md` });
      const listing = await callOk(client, 'list_notes', { project: 'acme/launch' });
      const paths = listing.entries.map((e) => e.path);
      assert.ok(!paths.includes(`acme/launch/${TITLE}.md`), `the note was written: ${paths.join(', ')}`);
    });
  });

  describe('without a valid token', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cairn-e2e', version: '0.0.0' } },
    };
    const post = (headers = {}) =>
      fetch(server.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize),
      });

    it('no Authorization header: 401 with a Bearer challenge', async () => {
      const res = await post();
      await res.arrayBuffer();
      assert.equal(res.status, 401);
      const challenge = res.headers.get('www-authenticate');
      assert.ok(challenge && challenge.includes('Bearer'), `WWW-Authenticate: ${challenge}`);
    });

    it('an unknown token: 401 with a Bearer challenge', async () => {
      const res = await post({ Authorization: 'Bearer cairn_pat_aaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' });
      await res.arrayBuffer();
      assert.equal(res.status, 401);
      const challenge = res.headers.get('www-authenticate');
      assert.ok(challenge && challenge.includes('Bearer'), `WWW-Authenticate: ${challenge}`);
    });
  });
});
