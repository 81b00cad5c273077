// OAuth end to end: the official TypeScript SDK client's OAuth support
// (an OAuthClientProvider driving its auth flow) against `cairn serve
// --http --public-url`, from a bare 401 through discovery, registration
// (by DCR, then by a Client ID Metadata Document this test serves over
// TLS on 127.0.0.1), the consent page driven in headless Chromium, and
// the token exchange; then tools are listed and a note written; then
// refresh, revocation by `cairn token revoke`, and the next call fails
// with 401.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium } from 'playwright-core';

import { freePort, makeVault, runCairn, runCairnWithInput, startHttpServer, within } from './helpers.mjs';

const PASSWORD = 'correct horse battery staple';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// Chromium's own network chatter is refused on a closed machine; these
// keep it quiet (and headless as root needs no sandbox).
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/** An in-memory OAuthClientProvider, as a desktop client keeps one. */
class Provider {
  constructor(redirectUrl, { metadataUrl } = {}) {
    this._redirect = redirectUrl;
    this.clientMetadataUrl = metadataUrl;
    this.authUrl = null;
    this._client = undefined;
    this._tokens = undefined;
    this._verifier = undefined;
  }
  get redirectUrl() { return this._redirect; }
  get clientMetadata() {
    return { client_name: 'cairn e2e', redirect_uris: [this._redirect], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; }
  tokens() { return this._tokens; }
  saveTokens(t) { this._tokens = t; }
  redirectToAuthorization(url) { this.authUrl = url; }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
}

/** A local page the consent sends the browser back to; resolves the code. */
async function redirectReceiver() {
  const port = await freePort();
  let resolveCode;
  const code = new Promise((r) => (resolveCode = r));
  const srv = http.createServer((req, res) => {
    const u = new URL(req.url, `http://127.0.0.1:${port}`);
    res.end('You can close this page.');
    if (u.pathname === '/callback') resolveCode(Object.fromEntries(u.searchParams));
  });
  await new Promise((r) => srv.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}/callback`, code, close: () => new Promise((r) => srv.close(r)) };
}

/** Serves a Client ID Metadata Document over TLS on 127.0.0.1, with a
 * certificate made by openssl for the test; returns its URL and the
 * certificate file (for cairn's SSL_CERT_FILE). */
async function documentServer(dir, redirectUrl) {
  const key = path.join(dir, 'doc.key');
  const cert = path.join(dir, 'doc.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const port = await freePort();
  const url = `https://127.0.0.1:${port}/clients/e2e.json`;
  const srv = https.createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ client_id: url, client_name: 'Metadata Document App', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }));
  });
  await new Promise((r) => srv.listen(port, '127.0.0.1', r));
  return { url, cert, close: () => new Promise((r) => srv.close(r)) };
}

/** Connects the SDK client with a provider; resolves to the client, or
 * throws UnauthorizedError once the provider holds an authorization URL. */
async function connect(url, provider) {
  const client = new Client({ name: 'cairn-e2e-oauth', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return client;
}

/** Approves in the browser what the authorization URL asks; returns the
 * query the client's redirect got. */
async function consentInBrowser(browser, authUrl, receiver, principal, { expectText } = {}) {
  const page = await browser.newPage();
  try {
    await page.goto(authUrl.toString());
    if (expectText) assert.ok((await page.content()).includes(expectText), `consent page should name ${expectText}`);
    await page.getByLabel('Principal').fill(principal);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Read and write').check();
    await page.getByRole('button', { name: 'Allow' }).click();
    return await within(30_000, 'the redirect back to the client after Allow', receiver.code);
  } finally {
    await page.close();
  }
}

describe('OAuth: an SDK client signs in through the consent page and writes', () => {
  let v;
  let server;
  let owner;
  let browser;
  let receiver;
  let docReceiver;
  let doc;
  let base;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: this test drives the consent page in Chromium (apt-get install chromium, or set CHROMIUM to a Chromium binary; .ci/run installs it)`);
    }
    v = await makeVault();
    owner = /^owner:\s*(\S+)/m.exec(await readFile(path.join(v.vault, '.cairn', 'access.yaml'), 'utf8'))[1];
    await runCairnWithInput(['password', 'set', owner, '--vault', v.vault], PASSWORD + '\n');
    receiver = await redirectReceiver();
    docReceiver = await redirectReceiver();
    doc = await documentServer(v.dir, docReceiver.url);
    server = await startHttpServer(v.vault, (port) => ['--public-url', `http://127.0.0.1:${port}`, '--allow-private-client-documents'],
      { env: { SSL_CERT_FILE: doc.cert } });
    base = `http://127.0.0.1:${server.port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    await docReceiver?.close();
    await doc?.close();
    await v?.cleanup();
  });

  it('registers by DCR, signs in, writes; refresh rotates; revoke ends it with 401', async () => {
    const provider = new Provider(receiver.url);
    const started = Date.now();
    await assert.rejects(connect(server.url, provider), UnauthorizedError);
    assert.ok(provider.authUrl, 'the SDK was sent to an authorization URL');
    assert.equal(provider.authUrl.origin + provider.authUrl.pathname, `${base}/authorize`);
    assert.equal(provider.authUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(provider.authUrl.searchParams.get('resource'), `${base}/mcp`);
    assert.match(provider.clientInformation().client_id, /^cairn_client_/, 'registered by DCR');

    const back = await consentInBrowser(browser, provider.authUrl, receiver, owner, { expectText: 'cairn e2e' });
    assert.ok(back.code, `the redirect got a code: ${JSON.stringify(back)}`);
    assert.equal(back.iss, base, 'iss in the authorization response');
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await transport.finishAuth(back.code);
    const client = await connect(server.url, provider);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'create_note'), 'a write grant lists create_note');
    const res = await client.callTool({ name: 'create_note', arguments: { project: 'acme/launch', body: '# From an OAuth app\n\nSigned in through the consent page.' } });
    assert.ok(!res.isError, JSON.stringify(res));
    console.log(`# from the first 401 to the first tool call: ${Date.now() - started} ms (DCR, consent in Chromium, exchange)`);
    await client.close();

    // The grant is a cairn token.
    const { stdout } = await runCairn(['token', 'list', '--vault', v.vault]);
    const line = stdout.split('\n').find((l) => l.includes('oauth: cairn e2e'));
    assert.ok(line, `cairn token list shows the grant:\n${stdout}`);

    // Refresh: new tokens; the old access token is refused.
    const old = provider.tokens().access_token;
    assert.equal(await auth(provider, { serverUrl: new URL(server.url) }), 'AUTHORIZED');
    assert.notEqual(provider.tokens().access_token, old, 'refresh gave a new access token');
    assert.equal((await rawCall(server.url, old)).status, 401, 'the access token before the refresh');
    assert.equal((await rawCall(server.url, provider.tokens().access_token)).status, 200, 'the new access token');

    // Revoke: the next call fails with 401.
    await runCairn(['token', 'revoke', '--vault', v.vault, line.trim().split(/\s+/)[0]]);
    const after = await rawCall(server.url, provider.tokens().access_token);
    assert.equal(after.status, 401);
    assert.match(after.headers.get('www-authenticate') ?? '', /invalid_token/);
  });

  it('signs in with a Client ID Metadata Document instead of registering', async () => {
    const provider = new Provider(docReceiver.url, { metadataUrl: doc.url });
    await assert.rejects(connect(server.url, provider), UnauthorizedError);
    assert.equal(provider.authUrl.searchParams.get('client_id'), doc.url, 'the client_id is the document URL');
    const back = await consentInBrowser(browser, provider.authUrl, docReceiver, owner, { expectText: 'Metadata Document App' });
    await new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }).finishAuth(back.code);
    const client = await connect(server.url, provider);
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0);
    await client.close();
    const { stdout } = await runCairn(['token', 'list', '--vault', v.vault]);
    assert.ok(stdout.includes('oauth: Metadata Document App'), stdout);
  });
});

/** A plain initialize POST with a bearer token; returns the response. */
async function rawCall(url, token) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
  });
  await res.text();
  return res;
}
