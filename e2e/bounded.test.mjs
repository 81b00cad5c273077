// A note built to make get_note's reply as large as it can be, read
// through the official TypeScript MCP client over stdio: 100,000 wikilinks
// with detailed: true once answered one 28 MB line, on which the client
// closed the connection and the rest of its session failed. The reply now
// stays within cairn's 1 MiB bound, says what it cut, and the session goes
// on.
//
//   CAIRN_BIN=/path/to/cairn node --test bounded.test.mjs

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { connectStdio, git, makeVault, resultData, resultText } from './helpers.mjs';

const REQUEST = { timeout: 30_000 };

describe('a reply built to be as large as it can be', { timeout: 120_000 }, () => {
  let vault;
  let session;

  before(async () => {
    vault = await makeVault();
    let body = '# Links\n\n';
    for (let i = 0; i < 100_000; i++) body += `[[n${i}]] `;
    await writeFile(path.join(vault.vault, 'acme', 'launch', 'Links.md'), body + '\n');
    await git(vault.vault, ['add', '-A']);
    await git(vault.vault, ['-c', 'user.name=P', '-c', 'user.email=p@x', 'commit', '-qm', 'links']);
    session = await connectStdio(vault.vault);
  });
  after(async () => {
    await session?.close();
    await vault?.cleanup();
  });

  it('get_note detailed on 100,000 wikilinks: within 1 MiB, the links counted, the session still answering', async () => {
    const res = await session.client.callTool({ name: 'get_note', arguments: { ref: 'acme/launch/Links.md', detailed: true } }, undefined, REQUEST);
    assert.notEqual(res.isError, true, resultText(res));
    const size = resultText(res).length + JSON.stringify(res.structuredContent).length;
    assert.ok(size <= 1 << 20, `the reply is ${size} bytes`);
    const data = resultData(res);
    assert.equal(data.links.outgoingTruncated.total, 100_000);
    assert.ok(data.links.outgoing.length > 0 && data.links.outgoing.length < 100_000);
    assert.match(data.notice, /cut to fit/);
    const me = await session.client.callTool({ name: 'whoami', arguments: {} }, undefined, REQUEST);
    assert.equal(resultData(me).principal, 'owner');
  });
});
