// End-to-end proof of issue 36: both MCP revisions, through every mode of
// the proxy, with the real SDKs. The TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0) and a Go SDK v1.8 client
// (e2e/goclient) drive e2e/fixtures/deploy-server.mjs, a server on the
// TypeScript SDK v2 that serves 2025-11-25 and 2026-07-28, over the matrix
//
//   client revision  2025-11-25 (the TS client's 'legacy' mode),
//                    2026-07-28 pinned ({ pin: '2026-07-28' }),
//                    auto (server/discover, else initialize)
//   × mode           stdio    selfheal proxy -- node deploy-server.mjs
//                    upstream selfheal proxy --listen 127.0.0.1:0 --upstream URL
//                             (deploy-server.mjs --http behind it)
//                    command  selfheal proxy --listen 127.0.0.1:0 -- node deploy-server.mjs
//   × listing        listed   the client lists the tools first;
//                    calls    it calls without listing;
//                    cached   it listed them on an earlier connection
//                             (through the same mode) and serves
//                             listTools() from its response cache, never
//                             sending tools/list on this one,
//
// each cell against a server of its own, compared with the same client
// revision reaching the same server directly (over stdio for stdio and
// command mode, over HTTP for upstream). In every cell:
//
//   - the negotiated revision is the one negotiated directly;
//   - every valid call's result equals the direct one;
//   - a bad call ({"age":"old"}, which the server refuses) is answered with
//     the validation_error explaining the server's refusal, which the client
//     reads without an SDK error (a 2026-07-28 client refuses a result with
//     no resultType: SdkError INVALID_RESULT);
//   - a near miss ({"env":"dev","dryrun":true}, which the server would run
//     for real, dropping dryrun) is answered before it reaches the server,
//     with a did-you-mean;
//   - after the server adds a tool and changes another
//     (notifications/tools/list_changed, which the client receives and does
//     not act on: autoRefresh false), near misses of the new tool and of the
//     changed one are stopped the same way, and valid calls of both pass;
//   - the server ran exactly the valid calls (calls.jsonl of its state
//     directory), where directly it also ran the three near misses.
//
// A cell's failures are gathered and reported together, each with what the
// client got, so that one run says everything a cell lacks.
//
//   npm ci --prefix e2e
//   go build -o /tmp/selfheal ./cmd/selfheal
//   go build -o /tmp/goclient ./e2e/goclient     (else the test builds it)
//   SELFHEAL_BIN=/tmp/selfheal GOCLIENT_BIN=/tmp/goclient node --test e2e/revisions.test.mjs
//
// SELFHEAL_BIN names the proxy binary; without it every test here is skipped.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, InMemoryResponseCacheStore, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  NODE, Proc, SELFHEAL, answersFirst, explains, fixtures, root, skip, startProxy, useScratch,
  withTimeout,
} from './helpers.mjs';

const scratch = useScratch('selfheal-revisions-e2e-');

const SERVER = join(fixtures, 'deploy-server.mjs');
const BOUND = 20_000; // every request, connection and wait: a lost message fails its step, not the file

// ---------------------------------------------------------------------------
// The matrix

const REVISIONS = [
  ['2025-11-25', 'legacy'],
  ['2026-07-28 pinned', { pin: '2026-07-28' }],
  ['auto', 'auto'],
];
const MODES = ['stdio', 'upstream', 'command'];
const LISTINGS = ['listed', 'calls first', 'cached'];

// The script: each step's call, in order; add_tool's list_changed is
// awaited after it.
const BEFORE = [
  ['deploy valid', 'deploy', { env: 'dev', dryRun: true }],
  ['add_user valid', 'add_user', { name: 'ada', age: 36 }],
  ['add_user bad', 'add_user', { age: 'old' }],
  ['deploy near miss', 'deploy', { env: 'dev', dryrun: true }],
  ['add_tool', 'add_tool', {}],
];
const AFTER = [
  ['rollback near miss', 'rollback', { env: 'dev', dryrun: true }],
  ['release near miss', 'release', { version: '2.0', dryrun: true }],
  ['rollback valid', 'rollback', { env: 'prod', dryRun: true }],
  ['release valid', 'release', { version: '2.0', dryRun: true }],
];
const TOOLS = ['deploy', 'add_user', 'release', 'add_tool']; // before add_tool
const VALID = ['deploy valid', 'add_user valid', 'add_tool', 'rollback valid', 'release valid'];
const NEAR_MISSES = [['deploy near miss', 'deploy'], ['rollback near miss', 'rollback'], ['release near miss', 'release']];

// What the server runs: through the proxy, the valid calls only; directly,
// the near misses too, their dryrun dropped (what the proxy must prevent).
const RAN_PROXIED = [
  { tool: 'deploy', arguments: { env: 'dev', dryRun: true } },
  { tool: 'add_user', arguments: { name: 'ada', age: 36 } },
  { tool: 'add_tool', arguments: {} },
  { tool: 'rollback', arguments: { env: 'prod', dryRun: true } },
  { tool: 'release', arguments: { version: '2.0', dryRun: true } },
];
const RAN_DIRECT = [
  { tool: 'deploy', arguments: { env: 'dev', dryRun: true } },
  { tool: 'add_user', arguments: { name: 'ada', age: 36 } },
  { tool: 'deploy', arguments: { env: 'dev' } },
  { tool: 'add_tool', arguments: {} },
  { tool: 'rollback', arguments: { env: 'dev' } },
  { tool: 'release', arguments: { version: '2.0' } },
  { tool: 'rollback', arguments: { env: 'prod', dryRun: true } },
  { tool: 'release', arguments: { version: '2.0', dryRun: true } },
];

const ran = (state) => {
  const file = join(state, 'calls.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
};

// ---------------------------------------------------------------------------
// Servers and proxies

// httpServer runs deploy-server.mjs --http on a port of its choosing, with
// its state in state.
async function httpServer(state) {
  const server = new Proc(NODE, [SERVER, '--http'], { PORT: '0', E2E_STATE: state });
  const [, url] = await server.line(/deploy-server listening on (http:\/\/\S+)\n/, BOUND, 'stdout');
  return { server, url };
}

// A place is where a client connects: { stdio: [cmd, args] } or { url },
// with env for the processes the client starts, and stop() for what the
// place started (resolving with what went wrong stopping it, if anything).
async function place(mode, { direct, state }) {
  const env = { E2E_STATE: state };
  if (mode === 'stdio' || (direct && mode === 'command')) {
    return {
      stdio: direct ? [NODE, [SERVER]] : [SELFHEAL, ['proxy', '--', NODE, SERVER]],
      env,
      log: () => '',
      stop: async () => undefined,
    };
  }
  const procs = [];
  let url;
  if (mode === 'upstream') {
    const s = await httpServer(state);
    procs.push(s.server);
    url = s.url;
    if (!direct) {
      const p = await startProxy(['--upstream', s.url]);
      procs.unshift(p.proxy);
      url = p.url;
    }
  } else {
    const p = await startProxy(['--', NODE, SERVER], env);
    procs.push(p.proxy);
    url = p.url;
  }
  return {
    url,
    env,
    log: () => procs.map((p) => `${p.what}:\n${p.stderr.slice(-3000)}`).join('\n'),
    stop: async () => {
      const problems = [];
      for (const p of procs) {
        try {
          const status = await p.stop('SIGTERM');
          if (status.code !== 0 && p.what.startsWith(SELFHEAL)) problems.push(`${p.what} exited ${JSON.stringify(status)} after SIGTERM`);
        } catch (e) {
          problems.push(String(e.message));
        } finally {
          p.kill();
        }
      }
      return problems.join('\n') || undefined;
    },
  };
}

// ---------------------------------------------------------------------------
// The TypeScript SDK v2 client

const sdkError = (e) => `${e?.constructor?.name ?? 'Error'}${e?.code !== undefined ? ` ${e.code}` : ''}: ${e?.message ?? e}`;

// tsClient connects a client of the revision (its versionNegotiation mode)
// to a place; cache is the response-cache store it shares with an earlier
// connection. It resolves with the client, the methods it sent, a promise
// of the next list_changed, and close().
async function tsClient(at, mode, cache) {
  let changed;
  const listChanged = new Promise((resolve) => { changed = resolve; });
  const client = new Client({ name: 'selfheal-revisions-e2e', version: '1.0.0' }, {
    versionNegotiation: { mode },
    listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => changed() } },
    // A 2025-11-25 server sends no ttlMs: the client's own TTL keeps its
    // list (2026-07-28 lists carry the server's ttlMs, which wins).
    ...(cache && { responseCacheStore: cache, defaultCacheTtlMs: 600_000 }),
  });
  let stderr = '';
  const transport = at.stdio
    ? new StdioClientTransport({ command: at.stdio[0], args: at.stdio[1], cwd: root, env: { ...process.env, ...at.env }, stderr: 'pipe' })
    : new StreamableHTTPClientTransport(new URL(at.url));
  if (at.stdio) {
    transport.stderr.setEncoding('utf8');
    transport.stderr.on('data', (s) => { if (stderr.length < 1 << 20) stderr += s; });
  }
  const sent = [];
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => { if (msg.method) sent.push(msg.method); return send(msg, opts); };
  try {
    await client.connect(transport, { timeout: BOUND });
  } catch (e) {
    await transport.close().catch(() => {}); // the process it started, if any
    e.message += stderr ? `\n${stderr.slice(-2000)}` : '';
    throw e;
  }
  return {
    client,
    sent,
    listChanged,
    stderr: () => stderr,
    close: () => withTimeout(client.close(), BOUND, 'the client to close'),
  };
}

// runTS runs the script with a connected client and resolves with what it
// got: the negotiated version, the methods sent, each step's { result } or
// { error }, whether list_changed came, and what the server ran.
async function runTS(c, listing, state) {
  const out = { version: c.client.getNegotiatedProtocolVersion(), steps: {} };
  if (listing !== 'calls first') {
    try {
      out.tools = (await c.client.listTools(undefined, { timeout: BOUND })).tools.map((t) => t.name);
    } catch (e) {
      out.listError = sdkError(e);
    }
  }
  const call = async ([name, tool, args]) => {
    try {
      out.steps[name] = { result: await c.client.callTool({ name: tool, arguments: args }, { timeout: BOUND }) };
    } catch (e) {
      out.steps[name] = { error: sdkError(e) };
    }
  };
  for (const step of BEFORE) await call(step);
  try {
    await withTimeout(c.listChanged, BOUND, 'notifications/tools/list_changed');
    out.listChanged = true;
  } catch (e) {
    out.listChanged = String(e.message);
  }
  for (const step of AFTER) await call(step);
  out.sent = [...c.sent];
  out.ran = ran(state);
  return out;
}

// A scenario: a fresh state directory, the place, (for cached, an earlier
// connection that lists), the script, and everything stopped. The result
// keeps the proxy's log.
async function tsScenario(mode, revision, listing, direct) {
  const state = scratch.newDir();
  const at = await place(mode, { direct, state });
  let out;
  let stderr = '';
  try {
    let cache;
    if (listing === 'cached') {
      cache = new InMemoryResponseCacheStore();
      const first = await tsClient(at, revision, cache);
      try {
        await first.client.listTools(undefined, { timeout: BOUND });
      } finally {
        stderr += first.stderr();
        await first.close();
      }
    }
    const c = await tsClient(at, revision, cache);
    try {
      out = await runTS(c, listing, state);
    } finally {
      stderr += c.stderr();
      await c.close();
    }
  } catch (e) {
    out = { fatal: sdkError(e), ran: ran(state) };
  } finally {
    const stopped = await at.stop();
    out ??= { fatal: 'no run', ran: ran(state) };
    out.log = `${stderr}${at.log()}${stopped ? `\n${stopped}` : ''}`;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Checking a run against the direct one

const show = (step) => JSON.stringify(step).slice(0, 1200);
const text = (step) => step?.result?.content?.map((c) => c.text).join('\n') ?? '';

// check gathers what is wrong with a proxied run p, given the direct run d
// of the same client revision; go marks the Go client's runs (its results
// are the wire's, resultType included).
function check(p, d, { go = false } = {}) {
  const problems = [];
  const expect = (what, fn) => {
    // Each check says what it got; node's diff after it would only repeat it.
    try { fn(); } catch (e) { problems.push(`${what}: ${e.message.split('\n+ actual - expected')[0].slice(0, 900)}`); }
  };
  const noError = (name) => assert.equal(p.steps[name]?.error, undefined, `an SDK error: ${p.steps[name]?.error}`);
  if (p.fatal) return [`the client failed: ${p.fatal}`];
  expect('the negotiated revision', () => assert.equal(p.version, d.version, `${p.version}, directly ${d.version}`));
  if (p.listError) problems.push(`tools/list: ${p.listError}`);
  for (const name of VALID) {
    expect(`${name} (valid): the result as directly`, () => {
      noError(name);
      assert.deepEqual(p.steps[name].result, d.steps[name].result, `${show(p.steps[name])}, directly ${show(d.steps[name])}`);
    });
  }
  expect('add_user bad: the validation_error explaining the server\'s refusal', () => {
    noError('add_user bad');
    explains(p.steps['add_user bad'].result, 'add_user', text(d.steps['add_user bad']), { field: 'name' });
  });
  for (const [name, tool] of NEAR_MISSES) {
    expect(`${name}: answered before the server, with a did-you-mean`, () => {
      noError(name);
      const t = answersFirst(p.steps[name].result, tool);
      assert.match(t, /did you mean 'dryRun'\?/, t);
    });
  }
  expect('notifications/tools/list_changed reached the client', () => assert.equal(p.listChanged, true, String(p.listChanged)));
  if (go && p.version === '2026-07-28') {
    for (const [name, step] of Object.entries(p.steps)) {
      expect(`${name}: resultType "complete" on the wire (2026-07-28)`, () => assert.equal(step.result?.resultType, 'complete', show(step)));
    }
  }
  const calls = (list) => list.map((c) => `${c.tool} ${JSON.stringify(c.arguments)}`).join('; ');
  expect('the calls the server ran: the valid ones only', () => assert.deepEqual(p.ran, RAN_PROXIED, `it ran ${calls(p.ran)}`));
  return problems;
}

// report fails with every problem of a cell, what the client got at each
// failing step, and the proxy's log.
function report(problems, p) {
  if (problems.length === 0) return;
  assert.fail(`${problems.length} problem(s):\n  - ${problems.join('\n  - ')}\n`
    + `what the client got: ${JSON.stringify({ version: p.version, tools: p.tools, sent: p.sent, listChanged: p.listChanged }).slice(0, 800)}\n`
    + Object.entries(p.steps ?? {}).map(([k, v]) => `  ${k}: ${show(v)}`).join('\n')
    + `\nlog:\n${(p.log ?? '').slice(-4000)}`);
}

// directOf memoizes the direct runs: by client and server kind (the stdio
// server serves stdio and command mode).
const directs = new Map();
function directOf(key, run) {
  if (!directs.has(key)) directs.set(key, run());
  return directs.get(key);
}

// sane asserts a direct run shows what the proxied runs are measured by:
// every call answered, the bad call refused, the near misses run.
function sane(d) {
  assert.equal(d.fatal, undefined, d.fatal);
  for (const [name, step] of Object.entries(d.steps)) assert.equal(step.error, undefined, `${name}: ${step.error}`);
  assert.equal(d.steps['add_user bad'].result.isError, true, show(d.steps['add_user bad']));
  assert.match(text(d.steps['add_user bad']), /^Input validation error: /);
  assert.equal(d.listChanged, true);
  assert.deepEqual(d.ran, RAN_DIRECT, 'directly, the server runs the near misses, dryrun dropped');
}

// ---------------------------------------------------------------------------
// The TypeScript SDK v2 client

const serverKind = (mode) => (mode === 'upstream' ? 'http' : 'stdio');

// Cells are independent (a server, a state directory and ports each), so a
// few run at once: most of a cell's time is processes starting.
describe('the TypeScript SDK v2 client (2.4.0), each revision, through every mode of selfheal proxy, listing or not', { skip, timeout: 1_800_000, concurrency: 3 }, () => {
  for (const [revision, negotiation] of REVISIONS) {
    for (const kind of ['stdio', 'http']) {
      test(`${revision}, directly over ${kind}: the server runs the near misses, which the proxied runs must stop`, async () => {
        const d = await directOf(`ts ${revision} ${kind}`, () => tsScenario(kind === 'http' ? 'upstream' : 'stdio', negotiation, 'calls first', true));
        sane(d);
        assert.equal(d.version, revision === '2025-11-25' ? '2025-11-25' : '2026-07-28');
      });
    }
    for (const mode of MODES) {
      for (const listing of LISTINGS) {
        test(`${revision} × ${mode} × ${listing}`, async () => {
          const d = await directOf(`ts ${revision} ${serverKind(mode)}`, () => tsScenario(serverKind(mode) === 'http' ? 'upstream' : 'stdio', negotiation, 'calls first', true));
          const p = await tsScenario(mode, negotiation, listing, false);
          const problems = d.fatal ? [`the direct run failed: ${d.fatal}`] : check(p, d);
          if (!p.fatal) {
            if (listing === 'listed' && !p.sent.includes('tools/list')) problems.push('the client did not list its tools: the cell is not what it says');
            if (listing !== 'listed' && p.sent.includes('tools/list')) problems.push(`the client sent tools/list (${listing}): the cell is not what it says`);
            if (listing !== 'calls first' && JSON.stringify(p.tools) !== JSON.stringify(TOOLS)) problems.push(`the tools listed: ${JSON.stringify(p.tools)}`);
          }
          report(problems, p);
        });
      }
    }
  }
});

// ---------------------------------------------------------------------------
// The Go SDK v1.8 client

let goclient;

// goScenario runs e2e/goclient against a place (a fresh state directory)
// and resolves with its steps in the shape of runTS's.
async function goScenario(mode, protocol, list, direct) {
  const state = scratch.newDir();
  const at = await place(mode, { direct, state });
  const args = [...(list ? ['-list'] : []), ...(protocol ? ['-protocol', protocol] : []), ...(at.url ? ['-url', at.url] : ['--', at.stdio[0], ...at.stdio[1]])];
  const proc = spawn(goclient, args, { cwd: root, env: { ...process.env, ...at.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = ''; let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (s) => { stdout += s; });
  proc.stderr.setEncoding('utf8').on('data', (s) => { if (stderr.length < 1 << 20) stderr += s; });
  const exit = new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  const out = { steps: {} };
  try {
    // Each of its steps is bounded by 20 s; a run is a dozen steps.
    const status = await withTimeout(exit, 300_000, 'goclient to finish');
    out.status = status;
    for (const line of stdout.split('\n').filter(Boolean)) {
      const s = JSON.parse(line);
      if (s.step === 'connect') { out.version = s.protocolVersion; if (s.error) out.fatal = `connect: ${s.error}`; }
      else if (s.step === 'list') { out.tools = s.tools; if (s.error) out.listError = s.error; }
      else if (s.step === 'list_changed') out.listChanged = s.seen;
      else out.steps[s.step] = s.error ? { error: s.error, result: s.result } : { result: s.result };
    }
    out.ran = ran(state);
    if (status.code !== 0 && !out.fatal) out.fatal = `goclient exited ${JSON.stringify(status)}:\n${stderr.slice(-2000)}`;
  } catch (e) {
    out.fatal = String(e.message);
  } finally {
    proc.kill('SIGKILL');
    const stopped = await at.stop();
    out.log = `${stderr}${at.log()}${stopped ? `\n${stopped}` : ''}`;
  }
  return out;
}

describe('the Go SDK v1.8 client (its default, 2026-07-28, and 2025-11-25), through every mode of selfheal proxy, listing or not', { skip, timeout: 900_000, concurrency: 3 }, () => {
  before(() => {
    if (skip) return;
    goclient = process.env.GOCLIENT_BIN;
    if (goclient) {
      assert.ok(existsSync(goclient), `GOCLIENT_BIN=${goclient} does not exist`);
      return;
    }
    goclient = join(scratch.dir, 'goclient');
    const b = spawnSync('go', ['build', '-o', goclient, './e2e/goclient'], { cwd: root, encoding: 'utf8', env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false` } });
    assert.equal(b.status, 0, `go build ./e2e/goclient (or set GOCLIENT_BIN):\n${b.stdout}${b.stderr}${b.error ?? ''}`);
  });

  // The SDK's default (2026-07-28), and 2025-11-25 asked for.
  for (const [revision, protocol] of [['2026-07-28 (the default)', ''], ['2025-11-25', '2025-11-25']]) {
    for (const kind of ['stdio', 'http']) {
      test(`${revision}, directly over ${kind}: the server runs the near misses, which the proxied runs must stop`, async () => {
        const d = await directOf(`go ${revision} ${kind}`, () => goScenario(kind === 'http' ? 'upstream' : 'stdio', protocol, false, true));
        sane(d);
        assert.equal(d.version, protocol || '2026-07-28');
        if (!protocol) for (const [name, step] of Object.entries(d.steps)) assert.equal(step.result?.resultType, 'complete', `${name}: ${show(step)}`);
      });
    }
    for (const mode of MODES) {
      for (const list of [true, false]) {
        test(`${revision} × ${mode} × ${list ? 'listed' : 'calls first'}`, async () => {
          const d = await directOf(`go ${revision} ${serverKind(mode)}`, () => goScenario(serverKind(mode) === 'http' ? 'upstream' : 'stdio', protocol, false, true));
          const p = await goScenario(mode, protocol, list, false);
          const problems = d.fatal ? [`the direct run failed: ${d.fatal}`] : check(p, d, { go: true });
          if (!p.fatal && list && JSON.stringify(p.tools) !== JSON.stringify(TOOLS)) problems.push(`the tools listed: ${JSON.stringify(p.tools)}`);
          report(problems, p);
        });
      }
    }
  }
});
