// End-to-end: `selfheal proxy --listen ADDR` over MCP's Streamable HTTP
// transport, driven by the official TypeScript client
// (StreamableHTTPClientTransport of @modelcontextprotocol/sdk):
//
//   - in front of @modelcontextprotocol/server-everything in its
//     streamableHttp mode (--upstream URL), compared with the server reached
//     directly: the same tools, the same answers to valid calls, progress
//     notifications over SSE, a session ended with DELETE; bad calls answered
//     with the validation_error;
//   - in front of @modelcontextprotocol/server-filesystem, a stdio server,
//     one process per HTTP session (--listen ADDR -- node server-filesystem).
//
//   npm ci --prefix e2e
//   go build -o /tmp/selfheal ./cmd/selfheal
//   SELFHEAL_BIN=/tmp/selfheal node --test e2e/
//
// SELFHEAL_BIN names the proxy binary; without it every test here is skipped.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = process.execPath;
const SELFHEAL = process.env.SELFHEAL_BIN;
const modules = join(root, 'e2e', 'node_modules', '@modelcontextprotocol');
const FS_SERVER = join(modules, 'server-filesystem', 'dist', 'index.js');
const EVERYTHING = join(modules, 'server-everything', 'dist', 'index.js');

const skip = SELFHEAL ? false
  : 'SELFHEAL_BIN is not set: build the proxy (go build -o /tmp/selfheal ./cmd/selfheal) and run SELFHEAL_BIN=/tmp/selfheal node --test e2e/';
const opts = { skip, timeout: 60_000 };

let scratch; // a temporary directory for everything this file writes

before(() => {
  if (skip) return;
  assert.ok(existsSync(SELFHEAL), `SELFHEAL_BIN=${SELFHEAL} does not exist`);
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'selfheal-http-e2e-')));
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------
// Processes

// Proc is a process whose stderr is kept and watched for a line.
class Proc {
  constructor(command, args, env) {
    this.what = [command, ...args].join(' ');
    this.proc = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.stderr = '';
    this.waiters = new Set();
    // server-everything logs every request on stdout: posts counts them.
    this.posts = 0;
    this.proc.stdout.setEncoding('utf8');
    let partial = '';
    this.proc.stdout.on('data', (s) => {
      const lines = (partial + s).split('\n');
      partial = lines.pop();
      this.posts += lines.filter((l) => l === 'Received MCP POST request').length;
    });
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (s) => {
      if (this.stderr.length < 1 << 20) this.stderr += s;
      for (const w of this.waiters) w();
    });
    this.exited = false;
    this.exit = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exited = true;
        for (const w of this.waiters) w();
        resolve({ code, signal });
      });
    });
  }

  // line resolves with the first match of re in stderr.
  line(re, ms = 20_000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = re.exec(this.stderr);
        if (m) { done(); resolve(m); return; }
        if (this.exited) { done(); reject(new Error(`${this.what}: exited before saying ${re}\n${this.stderr.slice(-2000)}`)); }
      };
      const timer = setTimeout(() => { done(); reject(new Error(`${this.what}: did not say ${re} in ${ms} ms\n${this.stderr.slice(-2000)}`)); }, ms);
      const done = () => { clearTimeout(timer); this.waiters.delete(check); };
      this.waiters.add(check);
      check();
    });
  }

  // stop sends sig and resolves with the exit status.
  stop(sig = 'SIGTERM', ms = 20_000) {
    if (!this.exited) this.proc.kill(sig);
    return withTimeout(this.exit, ms, `${this.what} to exit after ${sig}`);
  }

  kill() { if (!this.exited) this.proc.kill('SIGKILL'); }
}

function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms); }),
  ]);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startEverything runs server-everything over Streamable HTTP on a free
// port and resolves with it and its endpoint.
async function startEverything() {
  const port = await freePort();
  const server = new Proc(NODE, [EVERYTHING, 'streamableHttp'], { PORT: String(port) });
  await server.line(/MCP Streamable HTTP Server listening on port \d+/);
  return { server, url: `http://127.0.0.1:${port}/mcp` };
}

// startProxy runs selfheal proxy --listen 127.0.0.1:0 and resolves with it
// and the endpoint it prints.
async function startProxy(args) {
  const proxy = new Proc(SELFHEAL, ['proxy', '--listen', '127.0.0.1:0', ...args]);
  const [, url] = await proxy.line(/selfheal proxy: listening on (http:\/\/\S+)\n/);
  return { proxy, url };
}

async function connect(url) {
  const client = new Client({ name: 'selfheal-http-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

// validationError checks a result is selfheal's validation_error for tool and returns its text.
function validationError(result, tool) {
  assert.equal(result.isError, true, `isError: ${JSON.stringify(result).slice(0, 500)}`);
  assert.equal(result.content?.[0]?.type, 'text', JSON.stringify(result).slice(0, 500));
  const text = result.content[0].text;
  assert.ok(text.startsWith(`<validation_error action="${tool}">\n`), `a validation_error for ${tool}, got:\n${text}`);
  assert.ok(text.endsWith('</validation_error>'), `the validation_error is whole:\n${text}`);
  return text;
}

// issuesOf returns the issues of a validation_error: in structuredContent
// for a tool without an outputSchema, else in _meta["selfheal/issues"].
function issuesOf(result, hasOutputSchema) {
  const issues = hasOutputSchema ? result._meta?.['selfheal/issues']?.issues : result.structuredContent?.issues;
  assert.ok(Array.isArray(issues), `the issues: ${JSON.stringify(result).slice(0, 500)}`);
  return issues;
}

// post sends one JSON-RPC message as a client of session id would, and
// resolves with the status and the body.
async function post(url, sessionId, msg) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify(msg),
  });
  return { status: res.status, body: await res.text() };
}

function childrenOf(pid) {
  const kids = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const s = readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === pid && f[0] !== 'Z') kids.push(Number(e));
    } catch { /* gone */ }
  }
  return kids;
}

const alive = (pid) => {
  try { return readFileSync(`/proc/${pid}/stat`, 'utf8').slice(-200).split(') ')[1]?.[0] !== 'Z'; } catch { return false; }
};

// ---------------------------------------------------------------------------
// server-everything over Streamable HTTP, direct and through the proxy

describe('server-everything over Streamable HTTP, direct vs through selfheal proxy --upstream', opts, () => {
  let everything; let proxy;
  before(async () => {
    if (skip) return;
    everything = await startEverything();
    proxy = await startProxy(['--upstream', everything.url]);
    assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the endpoint is at the upstream\'s path');
  });
  after(async () => {
    if (skip) return;
    try {
      const status = await proxy.proxy.stop('SIGTERM');
      assert.deepEqual(status, { code: 0, signal: null }, `the proxy's exit status after SIGTERM\n${proxy.proxy.stderr.slice(-2000)}`);
    } finally {
      proxy?.proxy.kill();
      everything?.server.kill();
    }
  });

  // both runs fn against a session of the server reached directly and one
  // through the proxy, and resolves with both results.
  async function both(fn) {
    const out = [];
    for (const url of [everything.url, proxy.url]) {
      const { client, transport } = await connect(url);
      try {
        out.push(await fn(client, transport));
      } finally {
        await client.close();
      }
    }
    return out;
  }

  test('tools/list through the proxy is the server\'s', async () => {
    const [direct, through] = await both((c) => c.listTools());
    assert.ok(direct.tools.length > 5, `server-everything lists its tools: ${direct.tools.map((t) => t.name)}`);
    assert.deepEqual(through, direct);
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation']) {
      assert.ok(through.tools.some((t) => t.name === name), `${name} is listed`);
    }
  });

  test('bad calls are answered with the validation_error; the server never sees them', async () => {
    const { client } = await connect(proxy.url);
    try {
      await client.listTools();
      await sleep(200); // the server's log of the listing is written
      const posts = everything.server.posts;
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: '1', b: 2 } });
      const text = validationError(sum, 'get-sum');
      assert.match(text, /<field name="a">/, text);
      assert.match(text, /You sent: '1'/, text);
      assert.deepEqual(issuesOf(sum, false).map((i) => [i.code, i.path]), [['invalid_type', ['a']]]);

      const echo = await client.callTool({ name: 'echo', arguments: { mesage: 'hi' } });
      const etext = validationError(echo, 'echo');
      assert.match(etext, /mesage/, etext);
      assert.match(etext, /did you mean 'message'/, etext);

      const wrong = await client.callTool({ name: 'echo', arguments: { message: 42 } });
      assert.match(validationError(wrong, 'echo'), /You sent: 42 \(a number\)\. Expected a string\./);

      // A valid call reaches the server: one request logged, for the three
      // bad calls none.
      const ok = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      assert.equal(ok.content[0].text, 'Echo: hi');
      for (let i = 0; i < 100 && everything.server.posts < posts + 1; i++) await sleep(50);
      await sleep(200);
      assert.equal(everything.server.posts, posts + 1, 'the server got the valid call and none of the bad ones');
    } finally {
      await client.close();
    }
  });

  test('valid calls get the server\'s own answers', async () => {
    const [direct, through] = await both(async (c) => {
      await c.listTools();
      return [
        await c.callTool({ name: 'get-sum', arguments: { a: 1.5, b: 2 } }),
        await c.callTool({ name: 'echo', arguments: { message: 'héllo <world> & "you"' } }),
      ];
    });
    assert.deepEqual(through, direct);
    assert.equal(through[0].content[0].text, 'The sum of 1.5 and 2 is 3.5.');
    assert.equal(through[1].content[0].text, 'Echo: héllo <world> & "you"');
  });

  test('progress notifications arrive over SSE through the proxy, before the result', async () => {
    const { client } = await connect(proxy.url);
    try {
      await client.listTools();
      const events = [];
      const result = await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
        undefined,
        { onprogress: (p) => events.push(p), timeout: 30_000 },
      );
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.match(result.content[0].text, /Long running operation completed\. Duration: 1 seconds, Steps: 4\./);
      assert.deepEqual(events.map((p) => [p.progress, p.total]), [[1, 4], [2, 4], [3, 4], [4, 4]]);
    } finally {
      await client.close();
    }
  });

  test('a session ended with DELETE is refused afterwards, as the server refuses it', async () => {
    const refused = [];
    for (const url of [everything.url, proxy.url]) {
      const { client, transport } = await connect(url);
      await client.listTools();
      const id = transport.sessionId;
      assert.ok(id, 'the server gave a session id');
      const before = await post(url, id, { jsonrpc: '2.0', id: 1, method: 'ping' });
      assert.equal(before.status, 200, `ping before DELETE: ${before.status} ${before.body}`);
      await transport.terminateSession();
      assert.equal(transport.sessionId, undefined, 'the client forgot its session');
      const afterwards = await post(url, id, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } });
      assert.ok(afterwards.status >= 400 && afterwards.status < 500, `a call of the ended session: ${afterwards.status} ${afterwards.body}`);
      refused.push(afterwards);
      await client.close();
    }
    assert.deepEqual(refused[1], refused[0], 'the proxy refuses the ended session as the server does');
  });
});

// ---------------------------------------------------------------------------
// server-filesystem, a stdio server, over Streamable HTTP

describe('server-filesystem (stdio) over Streamable HTTP: selfheal proxy --listen ADDR -- node server-filesystem DIR', opts, () => {
  let dir; let proxy;
  before(async () => {
    if (skip) return;
    dir = mkdtempSync(join(scratch, 'fs-'));
    proxy = await startProxy(['--', NODE, FS_SERVER, dir]);
    assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });
  after(() => proxy?.proxy.kill());

  test('tools/list, a bad call answered with the validation_error, one process per session, SIGTERM ends them all', async () => {
    const { client, transport } = await connect(proxy.url);
    const { tools } = await client.listTools();
    for (const name of ['read_text_file', 'write_file', 'edit_file']) {
      assert.ok(tools.some((t) => t.name === name), `${name} is listed: ${tools.map((t) => t.name)}`);
    }
    const file = join(dir, 'a.txt');
    const bad = await client.callTool({ name: 'write_file', arguments: { path: file, contents: 'x' } });
    const text = validationError(bad, 'write_file');
    assert.match(text, /\bcontents\b/, text);
    assert.match(text, /did you mean/i, text);
    assert.equal(existsSync(file), false, 'nothing was written');

    const good = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } });
    assert.equal(good.isError, undefined, JSON.stringify(good));
    assert.equal(readFileSync(file, 'utf8'), 'x');

    // A second session is a second process.
    const second = await connect(proxy.url);
    await second.client.listTools();
    assert.notEqual(second.transport.sessionId, transport.sessionId);
    let kids = [];
    for (let i = 0; i < 100 && (kids = childrenOf(proxy.proxy.proc.pid)).length !== 2; i++) await sleep(50);
    assert.equal(kids.length, 2, `one server process per session: ${kids}`);

    // DELETE ends the first session's process.
    await transport.terminateSession();
    for (let i = 0; i < 100 && alive(kids[0]) && alive(kids[1]); i++) await sleep(50);
    assert.equal(kids.filter(alive).length, 1, 'the ended session\'s process has exited');

    const status = await proxy.proxy.stop('SIGTERM');
    assert.deepEqual(status, { code: 0, signal: null }, `exit status after SIGTERM\n${proxy.proxy.stderr.slice(-2000)}`);
    for (const pid of kids) assert.equal(alive(pid), false, `the server process ${pid} is left running`);
    await client.close().catch(() => {});
    await second.client.close().catch(() => {});
  });
});
