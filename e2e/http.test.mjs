// End-to-end: `selfheal proxy --listen ADDR` over MCP's Streamable HTTP
// transport, driven by the official TypeScript client
// (StreamableHTTPClientTransport of @modelcontextprotocol/sdk):
//
//   - in front of @modelcontextprotocol/server-everything in its
//     streamableHttp mode (--upstream URL), compared with the server reached
//     directly: the same tools, the same answers to valid calls, progress
//     notifications over SSE, a session ended with DELETE; bad calls
//     answered with the validation_error: by default forwarded and the
//     server's rejection explained (a relay in front of the server shows
//     which calls reached it), near misses and with --strict every bad call
//     answered before forwarding;
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
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer as createHTTPServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  EVERYTHING, FS_SERVER, MODES, NODE, Proc, answersFirst, explains, freePort, issuesOf, opts, skip,
  startProxy, useScratch,
} from './helpers.mjs';

const scratch = useScratch('selfheal-http-e2e-'); // everything this file writes

// ---------------------------------------------------------------------------
// Processes (Proc, freePort and startProxy are in helpers.mjs)

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// startEverything runs server-everything over Streamable HTTP on a free
// port and resolves with it and its endpoint.
async function startEverything() {
  const port = await freePort();
  const server = new Proc(NODE, [EVERYTHING, 'streamableHttp'], { PORT: String(port) });
  await server.line(/MCP Streamable HTTP Server listening on port \d+/);
  return { server, url: `http://127.0.0.1:${port}/mcp` };
}

async function connect(url) {
  const client = new Client({ name: 'selfheal-http-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

// startRelay runs an HTTP relay in front of the server at url: it keeps
// every JSON-RPC message of a POST body (what the server receives, in
// order) before passing the request on, and pipes each response back as it
// comes (event streams included). A message is kept before the server can
// answer it, so once a client has read an answer, the relay has kept every
// message that reached the server for it.
async function startRelay(url) {
  const up = new URL(url);
  const messages = [];
  const relay = createHTTPServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') {
        try { messages.push(...[JSON.parse(body.toString('utf8'))].flat()); } catch { /* the server judges it */ }
      }
      const out = httpRequest({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
        res.writeHead(ur.statusCode, ur.headers);
        ur.pipe(res);
      });
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayURL = new URL(url);
  relayURL.port = String(relay.address().port);
  return {
    url: relayURL.href,
    // calls are the tools/call requests the server has received, from index from.
    calls: (from = 0) => messages.slice(from).filter((m) => m?.method === 'tools/call').map((m) => m.params),
    count: () => messages.length,
    close: () => { relay.closeAllConnections(); return new Promise((resolve) => relay.close(resolve)); },
  };
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
  // relay: in front of the server, for two more proxies, one in each mode.
  let relay; const relayed = [];
  before(async () => {
    if (skip) return;
    everything = await startEverything();
    proxy = await startProxy(['--upstream', everything.url]);
    assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the endpoint is at the upstream\'s path');
    relay = await startRelay(everything.url);
    for (const flags of MODES) relayed.push(await startProxy([...flags, '--upstream', relay.url]));
  });
  after(async () => {
    if (skip) return;
    try {
      for (const p of [proxy, ...relayed]) {
        const status = await p.proxy.stop('SIGTERM');
        assert.deepEqual(status, { code: 0, signal: null }, `the proxy's exit status after SIGTERM\n${p.proxy.stderr.slice(-2000)}`);
      }
    } finally {
      for (const p of [proxy, ...relayed]) p?.proxy.kill();
      await relay?.close();
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

  MODES.forEach((flags, i) => {
    const strict = flags.length > 0;
    test(strict ? '--strict: bad calls are answered with the validation_error; the server never sees them'
      : 'the default mode: bad calls reach the server and its rejections are explained; a near miss never reaches it', async () => {
      const { client } = await connect(relayed[i].url);
      try {
        await client.listTools();
        const from = relay.count();
        const sum = await client.callTool({ name: 'get-sum', arguments: { a: '1', b: 2 } });
        const text = strict ? answersFirst(sum, 'get-sum')
          : explains(sum, 'get-sum', 'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a');
        assert.match(text, /<field name="a">/, text);
        assert.match(text, /You sent: '1'/, text);
        assert.deepEqual(issuesOf(sum, false).map((i) => [i.code, i.path]), [['invalid_type', ['a']]]);

        // A near miss: answered before forwarding in every mode (the server
        // would drop 'mesage').
        const echo = await client.callTool({ name: 'echo', arguments: { mesage: 'hi' } });
        const etext = answersFirst(echo, 'echo');
        assert.match(etext, /mesage/, etext);
        assert.match(etext, /<field name="message">Missing\. You sent: the unknown key 'mesage'\./, etext); // one line, at the field meant

        const wrong = await client.callTool({ name: 'echo', arguments: { message: 42 } });
        const wtext = strict ? answersFirst(wrong, 'echo')
          : explains(wrong, 'echo', 'MCP error -32602: Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received number at message');
        assert.match(wtext, /You sent: 42\. Expected a string\./);

        const ok = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
        assert.equal(ok.content[0].text, 'Echo: hi');

        // What reached the server: the valid call, and by default the two
        // bad calls it rejected; never the near miss.
        const want = strict ? [] : [{ name: 'get-sum', arguments: { a: '1', b: 2 } }, { name: 'echo', arguments: { message: 42 } }];
        assert.deepEqual(relay.calls(from), [...want, { name: 'echo', arguments: { message: 'hi' } }]);
      } finally {
        await client.close();
      }
    });
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
    dir = scratch.newDir();
    proxy = await startProxy(['--', NODE, FS_SERVER, dir]);
    assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });
  after(() => proxy?.proxy.kill());

  test('tools/list, bad calls answered with the validation_error (a near miss first, a bad type explained), one process per session, SIGTERM ends them all', async () => {
    const { client, transport } = await connect(proxy.url);
    const { tools } = await client.listTools();
    for (const name of ['read_text_file', 'write_file', 'edit_file']) {
      assert.ok(tools.some((t) => t.name === name), `${name} is listed: ${tools.map((t) => t.name)}`);
    }
    const file = join(dir, 'a.txt');
    const bad = await client.callTool({ name: 'write_file', arguments: { path: file, contents: 'x' } });
    const text = answersFirst(bad, 'write_file', { field: 'content', output: true }); // a near miss
    assert.match(text, /\bcontents\b/, text);
    assert.match(text, /<field name="content">Missing\. You sent: the unknown key 'contents'\./, text);
    assert.equal(existsSync(file), false, 'nothing was written');

    // A bad type is forwarded: the server rejects it, the proxy explains.
    const typed = await client.callTool({ name: 'write_file', arguments: { path: file, content: 5 } });
    explains(typed, 'write_file', 'MCP error -32602: Input validation error: Invalid arguments for tool write_file: Invalid input: expected string, received number at content',
      { field: 'content', output: true });
    assert.equal(existsSync(file), false, 'nothing was written');

    const good = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } });
    assert.equal(good.isError, undefined, JSON.stringify(good));
    assert.equal(readFileSync(file, 'utf8'), 'x');

    // A second session is a second process; one more waits started for
    // the next session (--warm 1, the default).
    const second = await connect(proxy.url);
    await second.client.listTools();
    assert.notEqual(second.transport.sessionId, transport.sessionId);
    let kids = [];
    for (let i = 0; i < 100 && (kids = childrenOf(proxy.proxy.proc.pid)).length !== 3; i++) await sleep(50);
    assert.equal(kids.length, 3, `one server process per session, and one warm: ${kids}`);

    // DELETE ends the first session's process (in the background: DELETE
    // is answered at once).
    await transport.terminateSession();
    for (let i = 0; i < 100 && kids.filter(alive).length !== 2; i++) await sleep(50);
    assert.equal(kids.filter(alive).length, 2, 'the ended session\'s process has exited');

    const status = await proxy.proxy.stop('SIGTERM');
    assert.deepEqual(status, { code: 0, signal: null }, `exit status after SIGTERM\n${proxy.proxy.stderr.slice(-2000)}`);
    for (const pid of kids) assert.equal(alive(pid), false, `the server process ${pid} is left running`);
    await client.close().catch(() => {});
    await second.client.close().catch(() => {});
  });
});
