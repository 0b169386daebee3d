// End-to-end: the official TypeScript MCP client (@modelcontextprotocol/sdk)
// spawns the Go example server (examples/mcpserver) over stdio and checks
// what a model would read. Expected answers are the Go end-to-end test's
// golden files (examples/mcpserver/testdata/*.golden), so both clients are
// held to the same bytes.
//
//   npm ci --prefix e2e && node --test e2e/
//
// MCPSERVER_BIN names a prebuilt server binary; without it the test runs
// `go run ./examples/mcpserver` from the repository root.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { checkGolden as check, golden, root } from './helpers.mjs';

let client;

before(async () => {
  const bin = process.env.MCPSERVER_BIN;
  const transport = new StdioClientTransport({
    command: bin || 'go',
    args: bin ? [] : ['run', './examples/mcpserver'],
    cwd: root,
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
