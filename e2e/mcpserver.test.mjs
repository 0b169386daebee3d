// End-to-end: the official TypeScript MCP clients spawn the Go example
// server (examples/mcpserver) over stdio and check what a model would read:
// the SDK v1 client (@modelcontextprotocol/sdk), which speaks 2025-11-25,
// and the SDK v2 client (@modelcontextprotocol/client 2.4.0) in 2025-11-25
// and pinned to 2026-07-28, which refuses a result without resultType.
// Expected answers are the Go end-to-end test's golden files
// (examples/mcpserver/testdata/*.golden), so every client is held to the
// same bytes. The v2 client also reads the answers gosdk.Middleware writes
// itself, which the example (all gosdk.AddTool) never gives, from
// e2e/fixtures/gosdk-middleware, held to mcp/gosdk's wire goldens.
//
//   npm ci --prefix e2e && node --test e2e/
//
// MCPSERVER_BIN names a prebuilt server binary; without it the test runs
// `go run ./examples/mcpserver` from the repository root.
// GOSDK_MIDDLEWARE_BIN names a prebuilt e2e/fixtures/gosdk-middleware;
// without it the test builds it.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';
import { checkGolden as check, golden, isResponse, root } from './helpers.mjs';

let client;

// The server's command: MCPSERVER_BIN, or go run.
const bin = process.env.MCPSERVER_BIN;
const server = { command: bin || 'go', args: bin ? [] : ['run', './examples/mcpserver'], cwd: root };

before(async () => {
  const transport = new StdioClientTransport({
    ...server,
    stderr: 'pipe', // the server logs what the model must not see; keep it off the test output
  });
  client = new Client({ name: 'selfheal-e2e', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
});

const cases = [
  ['invalid_type', 'users.create', { name: 42, email: 'ada@example.com', role: 'admin', age: '36', tags: 'vip' }],
  ['many_issues', 'users.create', { name: 'A', emial: 'ada@example.com', age: '36', role: 'Admin' }],
  ['invalid_union', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', payment: { type: 'card', last4: '12' } }],
  ['not_multiple_of', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', amount_min: 10.005 }],
  ['arguments_array', 'users.create', ['Ada', 'ada@example.com']],
  ['ok_get_invoice', 'billing.get_invoice', { id: 'inv_2026_0002' }],
  ['not_found', 'billing.get_invoice', { id: 'inv_2026_9999' }],
  ['warning_deprecated', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', status: 'open', page_size: 2 }],
  ['internal_error', 'billing.get_invoice', { id: 'inv_2026_0013' }],
];

for (const [name, tool, args] of cases) {
  test(`${tool}: ${name}`, async () => {
    const res = await client.callTool({ name: tool, arguments: args });
    check(res, golden(name));
  });
}

test('the client declares its language in _meta', async () => {
  const res = await client.callTool({
    name: 'users.create',
    arguments: { name: 'A', email: 'ada@example.com', role: 'Admin' },
    _meta: { 'selfheal/locale': 'ja' },
  });
  check(res, golden('locale_ja'));
});

// Unlike go-sdk's client, this one can leave the arguments out.
test('absent arguments', async () => {
  const res = await client.callTool({ name: 'users.create' });
  assert.equal(res.isError, true);
  assert.equal(res.content[0].text, `<validation_error action="users.create">
  <field name="(root)">You sent: nothing. Expected an object.</field>
  <field name="email">You sent: nothing. Expected a string.</field>
  <field name="name">You sent: nothing. Expected a string.</field>
  <field name="role">You sent: nothing. Expected a value.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`);
  assert.deepEqual(res._meta['selfheal/issues'].issues.map((i) => [i.code, i.path.join('.')]),
    [['invalid_type', ''], ['invalid_type', 'email'], ['invalid_type', 'name'], ['invalid_type', 'role']]);
});

test('tools/list advertises the schemas the tools check', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ['billing.export_invoices', 'billing.get_invoice', 'billing.list_invoices', 'users.create']);
  const create = tools.find((t) => t.name === 'users.create');
  assert.deepEqual(create.inputSchema.required, ['name', 'email', 'role']);
  assert.equal(create.inputSchema.properties.email.format, 'email');
});

// Last: it spends billing.get_invoice's rate (5 a second, bursts of 10).
test('billing.get_invoice is rate-limited', async () => {
  let res;
  for (let i = 0; i < 40; i++) {
    res = await client.callTool({ name: 'billing.get_invoice', arguments: { id: 'inv_2026_0001' } });
    if (res.isError) break;
  }
  assert.equal(res.isError, true);
  // retry_after is the real wait for the next call, at most a fifth of a
  // second at 5 calls a second, to the millisecond.
  const m = res.content[0].text.match(/<retry_after>(0\.\d{1,3}) seconds<\/retry_after>/);
  assert.ok(m, res.content[0].text);
  assert.ok(Number(m[1]) > 0 && Number(m[1]) <= 0.2, m[1]);
  assert.equal(res.content[0].text.replace(m[0], '<retry_after>WAIT</retry_after>'), `<tool_error code="RATE_LIMITED" severity="error">
  <message>Too many calls of this tool: the rate limit is reached.</message>
  <recovery>Wait for the time in retry_after, then call again. Do not retry before then, and send calls one at a time.</recovery>
  <retry_after>WAIT</retry_after>
</tool_error>`);
});

test('one export at a time: SERVER_BUSY', async () => {
  const first = client.callTool({ name: 'billing.export_invoices', arguments: { customer_id: 'cus_Ab12Cd34' } });
  await new Promise((r) => setTimeout(r, 300)); // the first export is running (it takes 2 s)
  const second = await client.callTool({ name: 'billing.export_invoices', arguments: { customer_id: 'cus_Ab12Cd34' } });
  check(second, golden('server_busy'));
  const done = await first;
  assert.equal(done.isError ?? false, false);
  assert.deepEqual(done.structuredContent, { exported: 6 });
});

// ---------------------------------------------------------------------------
// The TypeScript SDK v2 client (2.4.0), in 2025-11-25 and pinned to
// 2026-07-28, each with a server of its own (the guards' state is the
// server's). Every answer the server gives is read by both without an SDK
// error, the envelope text is the golden one (what the v1 client above and
// go-sdk's client read), the 2026-07-28 result is the 2025-11-25 one but
// for the serverInfo go-sdk adds, and on the wire the 2026-07-28 result is
// marked resultType "complete" while the 2025-11-25 one has no resultType
// (the client strips it from what it returns, so it is read raw).

const BOUND = 20_000; // each request: a lost answer fails its test, not the file
const SERVER_INFO = { name: 'selfheal-example', version: '1.0.0' };
const sdkError = (e) => `${e?.constructor?.name ?? 'Error'}${e?.code !== undefined ? ` ${e.code}` : ''}: ${e?.message ?? e}`;

// connect2 starts a server (of command, by default the example) and
// connects a v2 client in the revision mode (its versionNegotiation mode).
// It resolves with the client, the requests it sent and the raw response to
// each by id.
async function connect2(revision, mode, command = server) {
  const transport = new StdioClientTransport2({ ...command, stderr: 'pipe' });
  let stderr = '';
  // Drained, or the server blocks once the pipe is full; its tail is kept
  // for failure messages.
  transport.stderr.setEncoding('utf8').on('data', (s) => { stderr = (stderr + s).slice(-4000); });
  const sent = [];
  const raw = new Map();
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => {
    if (msg.method !== undefined && msg.id !== undefined) sent.push(msg);
    return send(msg, opts);
  };
  // Set before connect: the client calls it ahead of its own handler, which
  // removes resultType from the result it returns.
  transport.onmessage = (msg) => { if (isResponse(msg)) raw.set(msg.id, msg); };
  const client = new Client2({ name: 'selfheal-e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
  try {
    await client.connect(transport, { timeout: BOUND });
  } catch (e) {
    await transport.close().catch(() => {});
    e.message += `\n${stderr}`;
    throw e;
  }
  return { revision, client, sent, raw, stderr: () => stderr };
}

// as runs checks of one client's answer, saying which client failed.
function as(c, fn) {
  try {
    return fn();
  } catch (e) {
    e.message = `the ${c.revision} client: ${e.message}`;
    throw e;
  }
}

// exchange runs fn (requests of method through c, resolving with an array)
// and resolves with what the client returned, after checking that it
// raised no SDK error and that each raw result is marked as its revision
// requires.
async function exchange(c, method, fn) {
  const from = c.sent.length;
  let values;
  let error;
  try {
    values = await fn();
  } catch (e) {
    error = e;
  }
  const raws = c.sent.slice(from).filter((m) => m.method === method).map((m) => c.raw.get(m.id));
  // Each response's head and tail: a long text in between hides the members
  // after it.
  const show = () => raws.map((r) => {
    const s = JSON.stringify(r) ?? 'none';
    return s.length > 800 ? `${s.slice(0, 400)} … ${s.slice(-400)}` : s;
  }).join('\n');
  as(c, () => {
    // An SDK error is the failure itself; node's diff of it would only repeat it.
    if (error !== undefined) assert.fail(`${sdkError(error)}\nthe raw responses:\n${show()}\nthe server's log:\n${c.stderr()}`);
    assert.ok(raws.length > 0 && raws.every((r) => r?.result), `${method}: the raw responses are not all results:\n${show()}`);
    for (const { result } of raws) {
      if (c.revision === '2026-07-28') assert.equal(result.resultType, 'complete', `resultType on the wire: ${show()}`);
      else assert.equal('resultType' in result, false, `a 2025-11-25 result with a resultType: ${show()}`);
    }
  });
  return values;
}

const read = async (c, params) => (await exchange(c, 'tools/call', async () => [await c.client.callTool(params, { timeout: BOUND })]))[0];

// same asserts that the 2026-07-28 client's result is the 2025-11-25 one
// with go-sdk's serverInfo in _meta.
function same(r2026, r2025) {
  const { _meta: { 'io.modelcontextprotocol/serverInfo': info, ...meta } = {}, ...rest } = r2026;
  assert.deepEqual(info, SERVER_INFO, 'the 2026-07-28 result\'s serverInfo');
  assert.deepEqual(Object.keys(meta).length ? { ...rest, _meta: meta } : rest, r2025, 'the 2026-07-28 result, serverInfo aside, is the 2025-11-25 one');
}

// nested is users.create's arguments, depth levels deep (the object itself
// is one).
const nested = (depth) => ({ name: 'Ada', a: JSON.parse('['.repeat(depth - 1) + '1' + ']'.repeat(depth - 1)) });
const tooDeep = `<validation_error action="users.create">
  <field name="a${'[0]'.repeat(63)}">Nested too deeply. You sent: an array whose nesting depth exceeds 64. Expected a nesting depth of at most 64.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`;

// bothRevisions connects a v2 client of each revision to a server of its
// own: [2025-11-25, 2026-07-28].
const bothRevisions = (command) => Promise.all([
  connect2('2025-11-25', 'legacy', command),
  connect2('2026-07-28', { pin: '2026-07-28' }, command),
]);

describe('the TypeScript SDK v2 client (2.4.0), in 2025-11-25 and pinned to 2026-07-28', () => {
  let clients; // [2025-11-25, 2026-07-28]

  before(async () => {
    clients = await bothRevisions();
  });

  after(async () => {
    await Promise.all((clients ?? []).map((c) => c.client.close()));
  });

  // both calls a tool through each client and checks what each read.
  const both = async (params, check) => {
    const results = [];
    for (const c of clients) {
      const res = await read(c, params);
      as(c, () => check(res));
      results.push(res);
    }
    same(results[1], results[0]);
  };

  test('each client speaks the revision asked for: 2025-11-25 after initialize, 2026-07-28 without', () => {
    const [c2025, c2026] = clients;
    assert.equal(c2025.client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.equal(c2025.sent[0].method, 'initialize');
    assert.equal(c2026.client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.deepEqual(c2026.sent.filter((m) => m.method === 'initialize'), []);
  });

  // validation_errors, a success, tool_errors, a success with a warning.
  for (const [name, tool, args] of cases) {
    test(`${tool}: ${name}`, () => both({ name: tool, arguments: args }, (res) => check(res, golden(name))));
  }

  test('the client declares its language in _meta', () => both({
    name: 'users.create',
    arguments: { name: 'A', email: 'ada@example.com', role: 'Admin' },
    _meta: { 'selfheal/locale': 'ja' },
  }, (res) => check(res, golden('locale_ja'))));

  test('absent arguments', () => both({ name: 'users.create' }, (res) => {
    assert.equal(res.isError, true);
    assert.equal(res.content[0].text, `<validation_error action="users.create">
  <field name="(root)">You sent: nothing. Expected an object.</field>
  <field name="email">You sent: nothing. Expected a string.</field>
  <field name="name">You sent: nothing. Expected a string.</field>
  <field name="role">You sent: nothing. Expected a value.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`);
  }));

  // Within go-sdk's limit, past selfheal's: the Middleware refuses them.
  for (const depth of [65, 500]) {
    test(`arguments ${depth} levels deep: answered by mcp/gosdk`, () => both({ name: 'users.create', arguments: nested(depth) }, (res) => {
      assert.equal(res.isError, true);
      assert.deepEqual(res.content, [{ type: 'text', text: tooDeep }]);
      assert.deepEqual(res._meta['selfheal/issues'].issues.map((i) => [i.code, i.origin, i.maximum]), [['too_big', 'depth', 64]]);
    }));
  }

  // Past go-sdk's own limit (1000 levels for the whole message), where
  // go-sdk would end the session, the example's stdio transport answers
  // (examples/mcpserver/deep.go): the text only, and the session goes on.
  // Its answer carries the resultType a 2026-07-28 client requires.
  const transportDeep = async (c) => {
    const res = await read(c, { name: 'users.create', arguments: nested(2000) });
    as(c, () => assert.deepEqual(res, { content: [{ type: 'text', text: tooDeep }], isError: true }));
    const after = await read(c, { name: 'users.create', arguments: { name: 'Ada', email: 'ada@example.com', role: 'Admin' } });
    as(c, () => assert.match(after.content[0].text, /^<validation_error action="users.create">/));
  };
  test('arguments 2000 levels deep: answered by the example\'s transport (2025-11-25)', () => transportDeep(clients[0]));
  test('arguments 2000 levels deep: answered by the example\'s transport (2026-07-28)', () => transportDeep(clients[1]));

  test('tools/list', async () => {
    const lists = [];
    for (const c of clients) {
      const [list] = await exchange(c, 'tools/list', async () => [await c.client.listTools(undefined, { timeout: BOUND })]);
      as(c, () => assert.deepEqual(list.tools.map((t) => t.name).sort(),
        ['billing.export_invoices', 'billing.get_invoice', 'billing.list_invoices', 'users.create']));
      lists.push(list);
    }
    same(lists[1], lists[0]);
  });

  // Two exports at once: one runs (2 s), the other finds the only slot
  // taken, whichever go-sdk dispatches first.
  test('one export at a time: SERVER_BUSY', async () => {
    const results = [];
    for (const c of clients) {
      const params = { name: 'billing.export_invoices', arguments: { customer_id: 'cus_Ab12Cd34' } };
      const pair = await exchange(c, 'tools/call', () => Promise.all([params, params].map((p) => c.client.callTool(p, { timeout: BOUND }))));
      const [done, busy] = pair.sort((a, b) => Number(a.isError ?? false) - Number(b.isError ?? false));
      as(c, () => {
        check(busy, golden('server_busy'));
        assert.equal(done.isError ?? false, false);
        assert.deepEqual(done.structuredContent, { exported: 6 });
      });
      results.push(busy);
    }
    same(results[1], results[0]);
  });

  // Last: it spends billing.get_invoice's rate (5 a second, bursts of 10).
  test('billing.get_invoice is rate-limited', async () => {
    const results = [];
    for (const c of clients) {
      let res;
      for (let i = 0; i < 40 && !res?.isError; i++) res = await read(c, { name: 'billing.get_invoice', arguments: { id: 'inv_2026_0001' } });
      const m = res.content[0].text.match(/<retry_after>(0\.\d{1,3}) seconds<\/retry_after>/);
      as(c, () => {
        assert.equal(res.isError, true);
        assert.ok(m, res.content[0].text);
        assert.ok(Number(m[1]) > 0 && Number(m[1]) <= 0.2, m[1]);
      });
      res.content[0].text = res.content[0].text.replace(m[0], '<retry_after>WAIT</retry_after>');
      as(c, () => assert.equal(res.content[0].text, `<tool_error code="RATE_LIMITED" severity="error">
  <message>Too many calls of this tool: the rate limit is reached.</message>
  <recovery>Wait for the time in retry_after, then call again. Do not retry before then, and send calls one at a time.</recovery>
  <retry_after>WAIT</retry_after>
</tool_error>`));
      results.push(res);
    }
    same(results[1], results[0]);
  });
});

// ---------------------------------------------------------------------------
// gosdk.Middleware's own answers, read by the v2 client. examples/mcpserver
// registers its tools with gosdk.AddTool, whose answers go-sdk marks
// complete itself; the answers the Middleware writes in front of
// mcp.AddTool tools are marked by selfheal alone (a 2026-07-28 client threw
// SdkError INVALID_RESULT on them before commit 14154b6). The fixture
// e2e/fixtures/gosdk-middleware is mcp/gosdk/wire_test.go's Middleware
// server over stdio, so each raw result must be that test's bytes
// (mcp/gosdk/testdata/wire/<case>.<revision>.json), and what the client
// returns the same without resultType.
//
// GOSDK_MIDDLEWARE_BIN names a prebuilt fixture; without it the test builds
// it.

// The Middleware's cases of wire_test.go (wireCases): tool and arguments.
const middlewareCases = [
  ['middleware-validation', 'search', { query: 1 }],
  ['middleware-too-deep', 'search', { query: 'go', tags: JSON.parse('['.repeat(70) + ']'.repeat(70)) }],
  ['middleware-tool-error', 'missing', {}],
  ['middleware-panic', 'boom', {}],
  ['middleware-rate-limited', 'limited', { query: 'go' }],
  ['middleware-server-busy', 'busy', { query: 'go' }],
  ['middleware-plain-error', 'fail', {}],
  ['middleware-success', 'search', { query: 'go' }],
];

const wireGolden = (name, revision) => JSON.parse(readFileSync(join(root, 'mcp', 'gosdk', 'testdata', 'wire', `${name}.${revision}.json`), 'utf8'));

describe('gosdk.Middleware\'s own answers, read by the TypeScript SDK v2 client in 2025-11-25 and pinned to 2026-07-28', () => {
  let clients; // [2025-11-25, 2026-07-28]
  let scratch;

  before(async () => {
    let bin = process.env.GOSDK_MIDDLEWARE_BIN;
    if (!bin) {
      scratch = mkdtempSync(join(tmpdir(), 'selfheal-e2e-middleware-'));
      bin = join(scratch, 'gosdk-middleware');
      const b = spawnSync('go', ['build', '-o', bin, './e2e/fixtures/gosdk-middleware'],
        { cwd: root, encoding: 'utf8', env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false` } });
      assert.equal(b.status, 0, `go build ./e2e/fixtures/gosdk-middleware (or set GOSDK_MIDDLEWARE_BIN):\n${b.stdout}${b.stderr}${b.error ?? ''}`);
    }
    clients = await bothRevisions({ command: bin, args: [], cwd: root });
  });

  after(async () => {
    await Promise.all((clients ?? []).map((c) => c.client.close()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  for (const [name, tool, args] of middlewareCases) {
    test(name, async () => {
      for (const c of clients) {
        const from = c.sent.length;
        const res = await read(c, { name: tool, arguments: args });
        const raw = c.sent.slice(from).map((m) => c.raw.get(m.id).result);
        const want = wireGolden(name, c.revision);
        as(c, () => {
          assert.deepEqual(raw, [want], 'the raw result: mcp/gosdk\'s wire golden');
          const { resultType, ...returned } = want;
          assert.deepEqual(res, returned, 'what the client returns: the raw result without resultType');
        });
      }
    });
  }
});
