// End-to-end: the proxy is never worse than direct (issue 27, docs/ARCHITECTURE.md §6).
// `selfheal proxy -- CMD ARGS…` in front of servers nobody here wrote, each
// run directly and through the proxy by a raw JSON-RPC client that keeps
// every byte, and by the official TypeScript client:
//
//   - @modelcontextprotocol/server-memory and server-sequential-thinking
//     2026.8.31 (pinned in package.json), server-filesystem;
//   - fixtures/fastmcp-server.mjs, a fastmcp 4.20.16 server;
//   - fixtures/playwright-style-server.mjs, schemas built as @playwright/mcp
//     0.0.8x builds them (zod's toJSONSchema in its output mode: defaulted
//     fields listed as required), calls validated by the SDK's McpServer;
//   - fixtures/changing-server.mjs, a low-level SDK Server whose tool schema
//     changes at runtime (notifications/tools/list_changed);
//   - fixtures/paged-server.mjs, for a tools/list sent with "params": null.
//
//   npm ci --prefix e2e
//   go build -o /tmp/selfheal ./cmd/selfheal
//   SELFHEAL_BIN=/tmp/selfheal node --test e2e/
//
// SELFHEAL_BIN names the proxy binary; without it every test here is skipped.
//
// What each server does directly, for each case here (seen with the pinned
// versions; Node 20):
//
// server-sequential-thinking 2026.8.31 (McpServer; z.coerce.number().int()
// listed as {"type":"integer","minimum":1,...}; open schema, outputSchema):
//   - "thoughtNumber":"3", "totalThoughts":"5": accepted (z.coerce).
//   - "thoughtNumber":"abc": an isError result, {"type":"text","text":"MCP
//     error -32602: Input validation error: Invalid arguments for tool
//     sequentialthinking: Invalid input: expected number, received NaN at
//     thoughtNumber"}.
//   - "isrevision":true for isRevision: accepted, the key dropped silently:
//     the thought is recorded as no revision (thoughtHistoryLength grows).
// server-memory 2026.8.31 (McpServer; open schemas, every tool has an
// outputSchema):
//   - {"name":"search_nodes","\u0061rguments":{"query":"Ada"}}: accepted,
//     JSON.parse reads the key as "arguments".
//   - "query":5: isError, "MCP error -32602: Input validation error: Invalid
//     arguments for tool search_nodes: Invalid input: expected string,
//     received number at query" (the same with "n\u0061me" for "name").
//   - "qurey":"Ada": isError, "… Invalid input: expected string, received
//     undefined at query" (never names 'qurey').
//   - entities[0] with "entitytype": isError, "… Invalid input: expected
//     string, received undefined at entities[0].entityType".
// server-filesystem 2026.8.31: edit_file with "dryrun":true edits the file
// for real (the key is dropped); read_text_file of a missing file: isError,
// "ENOENT: no such file or directory, open '…'" (the schema finds nothing).
// fastmcp 4.20.16 (see the fixture: closed schemas, z.number().int() listed
// as {"type":"integer",…safe-integer bounds}):
//   - every bad call is a JSON-RPC error, never an isError result: "age":"36"
//     gives {"code":-32602,"message":"MCP error -32602: Tool 'set_age'
//     parameter validation failed: age: Invalid input: expected number,
//     received string. Please check the parameter types and values according
//     to the tool's schema."}; "role":"owner": "… role: Invalid option:
//     expected one of \"admin\"|\"member\"|\"viewer\". …"; "zip":"750": "…
//     address.zip: Invalid string: must match pattern /^\d{5}$/. …".
//   - "email":"a@x-.com": accepted (zod's email pattern allows it; a format
//     checker by host-name rules does not).
//   - "rol":"admin" for role: accepted, the key dropped silently, the user
//     invited as "member" (although the listing says additionalProperties
//     false).
//   - read_note of a missing file with "encoding" (dropped): an isError
//     result, "ENOENT: no such file or directory, open '…'"; search_web
//     with "page_size":"10" (coerced): "fetch failed: getaddrinfo
//     ENOTFOUND …" (the fixture's network is down); read_note with
//     "path":5: -32602 "… path: Invalid input: expected string, received
//     number …".
// playwright-style fixture (McpServer 1.32.2 validating; listing by
// zod.toJSONSchema, so "level" with .default('info') is listed required):
//   - browser_console_messages {}: accepted, level "info".
//   - browser_console_messages {"level":"verbose"}: isError from the handler,
//     as @playwright/mcp: "### Error\nInvalid arguments for tool
//     \"browser_console_messages\":\n✖ Invalid option: expected one of
//     \"error\"|\"warning\"|\"info\"|\"debug\"\n  → at level".
//   - browser_console_messages {"levle":"error"}: accepted, 'levle' dropped,
//     level "info" (silently wrong).
//   - the SDK's own validation is an isError result, not a JSON-RPC error:
//     "username":"admin1" gives "MCP error -32602: Input validation error:
//     Invalid arguments for tool create_user: Invalid string: must match
//     pattern /^(?!admin)[a-z0-9]+$/ at username"; "kind":"monthly": "…
//     Invalid discriminator value. Expected 'daily' | 'weekly' at
//     schedule.kind"; "email":"a@@x": "… Invalid email address at email".
//   - "email":"a@x-.com": accepted. A free-form value 70 levels deep: accepted.
// changing-server fixture (low-level Server; throws McpError(-32602)): a bad
// call is a JSON-RPC error, "MCP error -32602: Invalid arguments for tool
// tag_items: name: Too small: expected string to have >=1 characters".
// The TypeScript SDK (1.32.2) answers nothing at all to a tools/list sent
// with "params": null (the line fails its JSON-RPC message schema).
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  answeredFirst, bytesEqual, changing, explained, fastmcp, fieldLines, fieldName, filesystem,
  hasField, memory, opts, paged, playwright, proxied, proxiedNoDashes, sameAccepted, script, serverSaid,
  session, structured, thinking, tsClient, unescapeXML, useScratch, validationErrorLine,
} from './helpers.mjs';

const scratch = useScratch('selfheal-trust-e2e-'); // everything this file writes
const newDir = () => scratch.newDir();

const callLog = (file) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const logged = (file, name, args) => callLog(file).some((c) => c.name === name && JSON.stringify(c.arguments) === JSON.stringify(args));

// nest returns a value n levels deep: {"a":[{"a":[…"leaf"…]}]}.
function nest(n) {
  let v = 'leaf';
  for (let i = 0; i < n; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

// ---------------------------------------------------------------------------
// The playwright-style server: SDK validation (isError results), listings
// with defaulted fields required, a lookahead, a discriminated union, a
// free-form value.

describe('playwright-style server (McpServer, zod toJSONSchema output mode): direct vs through the proxy', opts, () => {
  const deep = nest(70);
  const calls = [
    ['console_empty', 'browser_console_messages', {}],
    ['console_debug', 'browser_console_messages', { level: 'debug', all: true }],
    ['invite_ok', 'send_invite', { email: 'a@x-.com', name: 'Ada' }],
    ['user_ok', 'create_user', { username: 'bob1' }],
    ['schedule_ok', 'schedule_report', { report: 'sales', schedule: { kind: 'weekly', day: 'mon' } }],
    ['deep_ok', 'store_value', { key: 'k', value: deep, note: 'open schema' }],
    ['console_bad', 'browser_console_messages', { level: 'verbose' }],
    ['user_admin', 'create_user', { username: 'admin1' }],
    ['schedule_bad', 'schedule_report', { report: 'sales', schedule: { kind: 'monthly' } }],
    ['invite_bad', 'send_invite', { email: 'a@@x', name: 'Ada' }],
    ['deep_bad', 'store_value', { key: '', value: deep }],
    ['console_near', 'browser_console_messages', { levle: 'error' }],
    ['user_near', 'create_user', { usernme: 'carol' }],
  ];
  let d;
  let p;
  let pLog;
  before(async () => {
    d = await session(playwright(), script(calls));
    pLog = join(newDir(), 'calls.log');
    p = await session(proxied(playwright()), script(calls), { env: { E2E_CALL_LOG: pLog } });
  });

  test('tools/list is byte-identical; level, defaulted, is listed as required', () => {
    bytesEqual(p.list, d.list, 'tools/list');
    const t = d.list.msg.result.tools.find((x) => x.name === 'browser_console_messages');
    assert.deepEqual(t.inputSchema.required, ['level']);
    assert.equal(t.inputSchema.properties.level.default, 'info');
  });

  test('browser_console_messages with {} (level has a default): the server\'s result, byte for byte', () => {
    sameAccepted(p.console_empty, d.console_empty, 'browser_console_messages {}');
    sameAccepted(p.console_debug, d.console_debug, 'browser_console_messages {level: debug}');
  });

  test('an email the server\'s zod accepts (a@x-.com) passes', () => {
    sameAccepted(p.invite_ok, d.invite_ok, 'send_invite a@x-.com');
  });

  test('a lookahead pattern and a discriminated union, valid: passed', () => {
    sameAccepted(p.user_ok, d.user_ok, 'create_user bob1');
    sameAccepted(p.schedule_ok, d.schedule_ok, 'schedule_report weekly');
  });

  test('a free-form value 70 levels deep in an open schema passes', () => {
    sameAccepted(p.deep_ok, d.deep_ok, 'store_value 70 levels deep');
    assert.match(p.deep_ok.msg.result.content[0].text, /depth 70/);
  });

  test('level "verbose" (the server\'s own isError): a validation_error at level listing every level, the server\'s message kept', () => {
    const text = explained(p.console_bad, d.console_bad, 'browser_console_messages', 'level');
    for (const v of ['error', 'warning', 'info', 'debug']) assert.match(hasField(text, 'level'), new RegExp(`'${v}'`), text);
  });

  test('a lookahead pattern violation ("admin1"): a validation_error at username, the pattern as written', () => {
    const text = explained(p.user_admin, d.user_admin, 'create_user', 'username');
    assert.ok(unescapeXML(hasField(text, 'username')).includes('^(?!admin)[a-z0-9]+$'), `the pattern as the schema wrote it:\n${text}`);
  });

  test('a discriminated-union miss ("monthly"): the field named, every allowed value listed', () => {
    const text = explained(p.schedule_bad, d.schedule_bad, 'schedule_report', (n) => n === 'schedule' || n?.startsWith('schedule.'));
    // In the field lines, not only in the server's message that quotes both.
    const fields = fieldLines(text).join('\n');
    assert.match(fields, /'daily'/, text);
    assert.match(fields, /'weekly'/, text);
  });

  test('an email the server rejects (a@@x): a validation_error at email', () => {
    explained(p.invite_bad, d.invite_bad, 'send_invite', 'email');
  });

  test('a bad field beside a value 70 levels deep: never worse than direct (the server\'s answer, or one naming key with it)', () => {
    const said = serverSaid(d.deep_bad, 'store_value');
    const res = p.deep_bad.msg.result;
    assert.equal(res?.isError, true, p.deep_bad.text.slice(0, 500));
    if (Buffer.compare(p.deep_bad.buf, d.deep_bad.buf) === 0) return; // forwarded unchecked, the server's answer
    explained(p.deep_bad, d.deep_bad, 'store_value', 'key');
    assert.ok(said);
  });

  test('near misses never reach the server: "levle" (the server would drop it) and "usernme"', () => {
    // Directly 'levle' is dropped and the call runs at level "info".
    assert.match(d.console_near.msg.result.content[0].text, /level "info"/);
    const t1 = answeredFirst(p.console_near, 'browser_console_messages');
    assert.match(t1, /\blevle\b/);
    assert.ok(fieldLines(t1).some((l) => /did you mean 'level'/.test(l)), t1);
    const t2 = answeredFirst(p.user_near, 'create_user');
    assert.match(t2, /\busernme\b/);
    assert.ok(fieldLines(t2).some((l) => fieldName(l) === 'username' && /Missing\. You sent: the unknown key 'usernme'\./.test(l)), t2);
    assert.ok(!logged(pLog, 'browser_console_messages', { levle: 'error' }), 'the server never received levle');
    assert.ok(!logged(pLog, 'create_user', { usernme: 'carol' }), 'the server never received usernme');
    // … and every other call did.
    assert.ok(logged(pLog, 'create_user', { username: 'admin1' }), JSON.stringify(callLog(pLog)));
    assert.ok(logged(pLog, 'browser_console_messages', {}), JSON.stringify(callLog(pLog)));
  });

  test('without "--" (selfheal proxy node SERVER): the same bytes as direct', async () => {
    const noDashes = await session(proxiedNoDashes(playwright()), script(calls.slice(0, 6)));
    bytesEqual(noDashes.list, d.list, 'tools/list');
    for (const [key] of calls.slice(0, 6)) sameAccepted(noDashes[key], d[key], key);
  });
});

describe('playwright-style server through selfheal proxy --strict', opts, () => {
  test('bad calls are answered before forwarding: the server never sees them', async () => {
    const log = join(newDir(), 'calls.log');
    const bad = [
      ['console_bad', 'browser_console_messages', { level: 'verbose' }, 'level'],
      ['user_admin', 'create_user', { username: 'admin1', role: 'member' }, 'username'],
      ['schedule_bad', 'schedule_report', { report: 'sales', schedule: { kind: 'monthly' } }, (n) => n === 'schedule' || n?.startsWith('schedule.')],
      ['invite_bad', 'send_invite', { email: 'a@@x', name: 'Ada' }, 'email'],
    ];
    const ok = ['user_ok', 'create_user', { username: 'bob1', role: 'member' }];
    const p = await session(proxied(playwright(), ['--strict']), script([...bad, ok]), { env: { E2E_CALL_LOG: log } });
    for (const [key, tool, args, field] of bad) {
      const text = answeredFirst(p[key], tool);
      hasField(text, field);
      assert.ok(!logged(log, tool, args), `--strict: the server never received ${key}: ${JSON.stringify(callLog(log))}`);
    }
    assert.equal(p.user_ok.msg.result.content[0].text, 'created bob1 (member)');
    assert.deepEqual(callLog(log), [{ name: 'create_user', arguments: ok[2] }], 'only the valid call reached the server');
  });
});

// ---------------------------------------------------------------------------
// fastmcp: JSON-RPC errors for bad calls.

describe('fastmcp 4.20 server (bad calls are JSON-RPC errors): direct vs through the proxy', opts, () => {
  const calls = [
    ['age_ok', 'set_age', { age: 36 }],
    ['invite_ok', 'invite', { email: 'a@x-.com', address: { city: 'Paris', zip: '75001' } }],
    ['age_string', 'set_age', { age: '36' }],
    ['role_bad', 'invite', { email: 'a@x-.com', role: 'owner' }],
    ['zip_bad', 'invite', { email: 'a@x-.com', address: { city: 'Paris', zip: '750' } }],
    ['role_near', 'invite', { email: 'a@x-.com', rol: 'admin' }],
    ['missing_extra', 'read_note', { path: '/no/such/note', encoding: 'utf8' }],
    ['offline_quoted', 'search_web', { query: 'mcp', page_size: '10' }],
    ['missing_wrong_type', 'read_note', { path: 5 }],
  ];
  let d;
  let p;
  before(async () => {
    d = await session(fastmcp(), script(calls));
    p = await session(proxied(fastmcp()), script(calls));
  });

  test('tools/list and valid calls: byte-identical (a@x-.com included)', () => {
    bytesEqual(p.list, d.list, 'tools/list');
    sameAccepted(p.age_ok, d.age_ok, 'set_age 36');
    sameAccepted(p.invite_ok, d.invite_ok, 'invite a@x-.com');
  });

  test('"36" for an integer: the server\'s JSON-RPC error becomes a validation_error result at age', () => {
    assert.equal(d.age_string.msg.error?.code, -32602, d.age_string.text);
    const text = explained(p.age_string, d.age_string, 'set_age', 'age');
    assert.equal(p.age_string.msg.error, undefined, 'a result, not an error');
    assert.match(hasField(text, 'age'), /\b36\b/, text);
  });

  test('an enum miss ("owner"): every allowed role listed', () => {
    const text = explained(p.role_bad, d.role_bad, 'invite', 'role');
    for (const v of ['admin', 'member', 'viewer']) assert.match(hasField(text, 'role'), new RegExp(`'${v}'`), text);
  });

  test('a nested pattern miss (address.zip): the pattern as the schema wrote it, one backslash', () => {
    const text = explained(p.zip_bad, d.zip_bad, 'invite', 'address.zip');
    const line = unescapeXML(hasField(text, 'address.zip'));
    assert.ok(line.includes(String.raw`'^\d{5}$'`), `'^\\d{5}$' as written:\n${text}`);
    assert.ok(!line.includes(String.raw`\\d`), `no doubled backslash:\n${text}`);
  });

  test('whose failure it is: a missing file read with an extra key, a search with the network down and "10" for page_size: the server\'s own answer, unchanged', () => {
    assert.match(d.missing_extra.text, /ENOENT/, d.missing_extra.text);
    bytesEqual(p.missing_extra, d.missing_extra, 'read_note of a missing file, with an extra key the server drops');
    assert.match(d.offline_quoted.text, /ENOTFOUND/, d.offline_quoted.text);
    bytesEqual(p.offline_quoted, d.offline_quoted, 'search_web with the network down, page_size "10" (coerced)');
  });

  test('whose failure it is: a wrong type the server refuses is still explained', () => {
    explained(p.missing_wrong_type, d.missing_wrong_type, 'read_note', 'path');
  });

  test('a near miss of an optional key ("rol"): the server silently invites a member, the proxy answers', () => {
    assert.match(d.role_near.msg.result.content[0].text, /"role":"member"/, 'directly the role is dropped');
    const text = answeredFirst(p.role_near, 'invite');
    assert.match(text, /\brol\b/);
    assert.match(text, /did you mean 'role'/, text);
  });
});

describe('fastmcp 4.20 server, the official TypeScript client', opts, () => {
  test('"36": directly the client throws McpError -32602, through the proxy it reads a validation_error', async () => {
    const direct = await tsClient(...fastmcp());
    const through = await tsClient(...proxied(fastmcp()));
    try {
      await direct.client.listTools();
      await through.client.listTools();
      await assert.rejects(direct.client.callTool({ name: 'set_age', arguments: { age: '36' } }),
        (e) => e instanceof McpError && e.code === -32602 && /parameter validation failed/.test(e.message));
      const res = await through.client.callTool({ name: 'set_age', arguments: { age: '36' } });
      assert.equal(res.isError, true);
      assert.ok(res.content[0].text.startsWith('<validation_error action="set_age">'), res.content[0].text);
      assert.match(res.content[0].text, /<server_message>[^<]*parameter validation failed/);
      assert.deepEqual(await through.client.callTool({ name: 'set_age', arguments: { age: 7 } }),
        await direct.client.callTool({ name: 'set_age', arguments: { age: 7 } }));
    } finally {
      await direct.client.close();
      await through.client.close();
    }
  });
});

// ---------------------------------------------------------------------------
// server-sequential-thinking: z.coerce.

describe('server-sequential-thinking: direct vs through the proxy', opts, () => {
  const thought = (n, extra = {}) => ({ thought: `step ${n}`, thoughtNumber: n, totalThoughts: 4, nextThoughtNeeded: true, ...extra });
  const calls = [
    ['coerced', 'sequentialthinking', { thought: 'step 3', thoughtNumber: '3', totalThoughts: '5', nextThoughtNeeded: true }],
    ['nan', 'sequentialthinking', thought('abc')],
    ['near', 'sequentialthinking', thought(2, { isrevision: true, revisesThought: 1 })],
    ['after', 'sequentialthinking', thought(3)],
  ];
  let d;
  let p;
  before(async () => {
    d = await session(thinking(), script(calls));
    p = await session(proxied(thinking()), script(calls));
  });

  test('"thoughtNumber": "3" (z.coerce) gives the server\'s result, byte for byte', () => {
    bytesEqual(p.list, d.list, 'tools/list');
    sameAccepted(p.coerced, d.coerced, 'thoughtNumber "3"');
    assert.equal(p.coerced.msg.result.structuredContent.thoughtNumber, 3);
  });

  test('"thoughtNumber": "abc": a validation_error at thoughtNumber, issues in _meta (the tool has an output schema)', () => {
    explained(p.nan, d.nan, 'sequentialthinking', 'thoughtNumber', { output: true });
  });

  test('"isrevision" for isRevision: directly a silent non-revision, through the proxy answered and never sent', () => {
    assert.equal(d.near.msg.result.isError, undefined, d.near.text);
    assert.equal(d.near.msg.result.structuredContent.thoughtHistoryLength, 2, 'directly the thought was recorded');
    const text = answeredFirst(p.near, 'sequentialthinking', { output: true });
    assert.match(text, /\bisrevision\b/);
    assert.match(text, /did you mean 'isRevision'/, text);
    // The server's history shows whether it got the call.
    assert.equal(d.after.msg.result.structuredContent.thoughtHistoryLength, 3);
    assert.equal(p.after.msg.result.structuredContent.thoughtHistoryLength, 2, 'through the proxy the server never got the misspelt call');
  });
});

// ---------------------------------------------------------------------------
// server-memory: escaped member names, a misspelt required key, nested near misses.

describe('server-memory: direct vs through the proxy', opts, () => {
  const ada = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };
  const calls = [
    ['create', 'create_entities', ada],
    ['escaped_args', null, (raw) => raw.requestLine(String.raw`{"jsonrpc":"2.0","id":"esc-1","method":"tools/call","params":{"name":"search_nodes","\u0061rguments":{"query":"Ada"}}}`, 'esc-1')],
    ['escaped_name_ok', null, (raw) => raw.requestLine(String.raw`{"jsonrpc":"2.0","id":"esc-2","method":"tools/call","params":{"n\u0061me":"search_nodes","arguments":{"qu\u0065ry":"program"}}}`, 'esc-2')],
    ['query_number', 'search_nodes', { query: 5 }],
    ['escaped_name_bad', null, (raw) => raw.requestLine(String.raw`{"jsonrpc":"2.0","id":"esc-3","method":"tools/call","params":{"n\u0061me":"search_nodes","\u0061rguments":{"query":5}}}`, 'esc-3')],
    ['qurey', 'search_nodes', { qurey: 'Ada' }],
    ['nested_near', 'create_entities', { entities: [{ name: 'Bob', entitytype: 'person', observations: [] }] }],
    ['graph', 'read_graph', {}],
  ];
  let d;
  let p;
  before(async () => {
    d = await session(memory(), script(calls), { env: { MEMORY_FILE_PATH: join(newDir(), 'memory.jsonl') } });
    p = await session(proxied(memory()), script(calls), { env: { MEMORY_FILE_PATH: join(newDir(), 'memory.jsonl') } });
  });

  test('{"name":"search_nodes","\\u0061rguments":{…}} and "n\\u0061me": the server\'s results, byte for byte', () => {
    bytesEqual(p.list, d.list, 'tools/list');
    sameAccepted(p.create, d.create, 'create_entities');
    sameAccepted(p.escaped_args, d.escaped_args, '\\u0061rguments');
    assert.equal(p.escaped_args.msg.result.structuredContent.entities[0].name, 'Ada');
    sameAccepted(p.escaped_name_ok, d.escaped_name_ok, 'n\\u0061me');
  });

  test('"query": 5: a validation_error at query, issues in _meta, with the server\'s message', () => {
    explained(p.query_number, d.query_number, 'search_nodes', 'query', { output: true });
  });

  test('escaped member names do not hide a bad call ("n\\u0061me", "\\u0061rguments" with "query": 5)', () => {
    explained(p.escaped_name_bad, d.escaped_name_bad, 'search_nodes', 'query', { output: true });
  });

  test('"qurey" for the required "query": one line at query, "Missing. You sent: the unknown key \'qurey\'."', () => {
    serverSaid(d.qurey, 'search_nodes'); // the server rejects it directly
    const text = answeredFirst(p.qurey, 'search_nodes', { output: true });
    const lines = fieldLines(text);
    assert.equal(lines.length, 1, `one issue line:\n${text}`);
    assert.equal(fieldName(lines[0]), 'query', text);
    assert.match(lines[0], /^\s*<field name="query">Missing\. You sent: the unknown key 'qurey'\./, text);
    assert.ok(!/ignores unknown keys/.test(text), `not worded as an ignored key:\n${text}`);
    const sc = structured(p.qurey.msg.result, true);
    assert.ok(sc.issues.some((i) => JSON.stringify(i.path) === '["query"]'), `an issue at ["query"]: ${JSON.stringify(sc.issues)}`);
  });

  test('a nested near miss ("entitytype" in entities[0]): answered by the proxy, nothing created', () => {
    serverSaid(d.nested_near, 'create_entities');
    const text = answeredFirst(p.nested_near, 'create_entities', { output: true });
    assert.match(text, /\bentitytype\b/);
    assert.match(text, /<field name="entities\[0\]\.entityType">Missing\. You sent: the unknown key 'entitytype'\./, text);
    bytesEqual(p.graph, d.graph, 'read_graph');
    assert.deepEqual(p.graph.msg.result.structuredContent.entities.map((e) => e.name), ['Ada']);
  });
});

// ---------------------------------------------------------------------------
// server-filesystem: the misspelt dry run; a rejection the schema cannot explain.

describe('server-filesystem: direct vs through the proxy', opts, () => {
  test('edit_file with "dryrun": the file is untouched through the proxy (edited for real directly)', async () => {
    const dir = newDir();
    const a = join(dir, 'proxied.txt');
    const b = join(dir, 'direct.txt');
    writeFileSync(a, 'alpha\n');
    writeFileSync(b, 'alpha\n');
    const edit = (path) => ({ path, edits: [{ oldText: 'alpha', newText: 'beta' }], dryrun: true });
    const p = await session(proxied(filesystem(dir)), script([['edit', 'edit_file', edit(a)]]));
    const d = await session(filesystem(dir), script([['edit', 'edit_file', edit(b)]]));
    const text = answeredFirst(p.edit, 'edit_file', { output: true });
    assert.match(text, /\bdryrun\b/);
    assert.match(text, /did you mean 'dryRun'/, text);
    assert.equal(readFileSync(a, 'utf8'), 'alpha\n', 'through the proxy the file is untouched');
    assert.equal(d.edit.msg.result.isError, undefined);
    assert.equal(readFileSync(b, 'utf8'), 'beta\n', 'directly the server edited the file');
  });

  test('a rejection the schema finds nothing in (a missing file) passes untouched', async () => {
    const dir = newDir();
    const calls = [['missing', 'read_text_file', { path: join(dir, 'no-such-file.txt') }]];
    const d = await session(filesystem(dir), script(calls));
    const p = await session(proxied(filesystem(dir)), script(calls));
    serverSaid(d.missing, 'read_text_file');
    bytesEqual(p.missing, d.missing, 'read_text_file of a missing file');
  });
});

// ---------------------------------------------------------------------------
// notifications/tools/list_changed: a schema that changes while the client
// never lists again.

describe('a tool schema that changes at runtime (notifications/tools/list_changed)', opts, () => {
  // run: list, a bad call under version 1, upgrade, then calls under version
  // 2 without listing again; then a new listing and a bad call.
  const run = (cmd, log) => session(cmd, async (raw) => {
    const out = { list: await raw.request('tools/list') };
    out.v1_ok = await raw.call('tag_items', { name: 'a' });
    out.v1_bad = await raw.call('tag_items', { name: '' });
    const from = raw.lines.length;
    out.upgrade = await raw.call('upgrade', {});
    await raw.waitFor((l) => l.msg?.method === 'notifications/tools/list_changed', 'notifications/tools/list_changed', 5000, from);
    out.v2_ok = await raw.call('tag_items', { names: ['a', 'b'] }); // by version 1: a near miss of 'name'
    out.v2_bad_stale = await raw.call('tag_items', { names: 'a' });
    out.relist = await raw.request('tools/list');
    out.v2_bad = await raw.call('tag_items', { names: [] });
    return out;
  }, { env: log && { E2E_CALL_LOG: log } });
  let d;
  before(async () => { d = await run(changing()); });

  test('directly: version 2 is in force after the notification', () => {
    assert.match(d.v2_ok.msg.result.content[0].text, /^tagged \(version 2\)/);
    assert.equal(d.v1_bad.msg.error?.code, -32602, d.v1_bad.text);
    assert.equal(d.v2_bad.msg.error?.code, -32602, d.v2_bad.text);
  });

  for (const flags of [[], ['--strict']]) {
    const mode = flags.length ? '--strict' : 'the default mode';
    test(`${mode}: a call valid under the new schema and not the old is accepted, the client never listing again`, async () => {
      const log = join(newDir(), 'calls.log');
      const p = await run(proxied(changing(), flags), log);
      bytesEqual(p.list, d.list, 'tools/list');
      sameAccepted(p.v1_ok, d.v1_ok, 'tag_items version 1');
      sameAccepted(p.upgrade, d.upgrade, 'upgrade');
      sameAccepted(p.v2_ok, d.v2_ok, 'tag_items {names: [a, b]} after the change');
      // A bad call right after the change: the server decides (it may be
      // explained by the new schema, never refused by the old one).
      assert.ok(!p.v2_bad_stale.msg.result?.content?.[0]?.text?.includes('<field name="name">'), `judged by the old schema:\n${p.v2_bad_stale.text}`);
      assert.ok(logged(log, 'tag_items', { names: 'a' }) || flags.length, `the server received {names: "a"}: ${JSON.stringify(callLog(log))}`);
      if (Buffer.compare(p.v2_bad_stale.buf, d.v2_bad_stale.buf) !== 0) {
        if (flags.length) hasField(validationErrorLine(p.v2_bad_stale, 'tag_items'), 'names');
        else explained(p.v2_bad_stale, d.v2_bad_stale, 'tag_items', 'names');
      }
      bytesEqual(p.relist, d.relist, 'tools/list after the change');
      if (flags.length) {
        hasField(answeredFirst(p.v1_bad, 'tag_items'), 'name');
        hasField(answeredFirst(p.v2_bad, 'tag_items'), 'names');
        assert.ok(!logged(log, 'tag_items', { names: [] }), '--strict: the server never got {names: []}');
      } else {
        explained(p.v1_bad, d.v1_bad, 'tag_items', 'name'); // a JSON-RPC error explained
        explained(p.v2_bad, d.v2_bad, 'tag_items', 'names');
      }
    });
  }
});

describe('a tools/list with "params": null is read like any other', opts, () => {
  test('the tools it lists are checked: a near miss answered', async () => {
    // paged-server answers a call it accepts with the arguments it got.
    await session(proxied(paged()), async (raw) => {
      const one = await raw.requestLine('{"jsonrpc":"2.0","id":"l1","method":"tools/list","params":null}', 'l1', 'tools/list');
      assert.equal(one.msg.result.nextCursor, 'page-2');
      const res = await raw.call('first', { N: 1 });
      const text = answeredFirst(res, 'first');
      assert.match(text, /<field name="n">Missing\. You sent: the unknown key 'N'\./, text);
      assert.equal((await raw.call('first', { n: 1 })).msg.result.content[0].text, 'server got first {"n":1}');
    });
  });
});

describe('playwright-style server, the official TypeScript client through the proxy', opts, () => {
  test('browser_console_messages with {} and a deep free-form value: the same results as direct', async () => {
    const direct = await tsClient(...playwright());
    const through = await tsClient(...proxied(playwright()));
    try {
      assert.deepEqual(await through.client.listTools(), await direct.client.listTools());
      for (const call of [
        { name: 'browser_console_messages', arguments: {} },
        { name: 'send_invite', arguments: { email: 'a@x-.com', name: 'Ada' } },
        { name: 'store_value', arguments: { key: 'deep', value: nest(70) } },
      ]) {
        const want = await direct.client.callTool(call);
        assert.ok(!want.isError, JSON.stringify(want));
        assert.deepEqual(await through.client.callTool(call), want, call.name);
      }
    } finally {
      await direct.client.close();
      await through.client.close();
    }
  });
});
