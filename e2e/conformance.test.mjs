// End-to-end: the server checks of @modelcontextprotocol/conformance 0.1.16
// (its CLI: conformance server --url URL --suite all) against its reference
// server (e2e/fixtures/conformance-everything-server.mjs) over Streamable
// HTTP, run directly and then through `selfheal proxy --listen 127.0.0.1:0
// --upstream URL`: every check has the same status through the proxy as
// directly (issue 28), the DNS-rebinding check included (a POST with Host
// and Origin evil.example.com gets 403: the proxy checks Host and Origin
// itself, and forwards the client's Host).
//
// The CLI needs fs.globSync, which Node has from 22 only; on Node 20 it is
// run with --import e2e/fixtures/conformance-node20.mjs, which says why.
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
  NODE, Proc, fixtures, freePort, modules, opts, skip, startProxy, useScratch, withTimeout,
} from './helpers.mjs';

const scratch = useScratch('selfheal-conformance-e2e-'); // the CLI's results

const CLI = join(modules, 'conformance', 'dist', 'index.js');
const NODE20 = join(fixtures, 'conformance-node20.mjs');
const SERVER = join(fixtures, 'conformance-everything-server.mjs');

// The checks of the DNS-rebinding scenario: evil.example.com refused (4xx),
// the server's own host:port accepted (2xx).
const REJECTED = 'dns-rebinding-protection localhost-host-rebinding-rejected';
const ACCEPTED = 'dns-rebinding-protection localhost-host-valid-accepted';

// conformance runs every server scenario against url and resolves with the
// checks by "scenario check-id" (a repeated id gets " #2", " #3"...), each
// { status, check }, and the CLI's output.
async function conformance(url, name) {
  const out = join(scratch.newDir(), name);
  const cli = new Proc(NODE, ['--import', NODE20, CLI, 'server', '--url', url, '--suite', 'all', '-o', out],
    {}, { cwd: scratch.dir });
  let status;
  try {
    // A scenario takes well under a second here; the SDK client's own
    // request timeout is 60 s, so a lost message would stop the run there.
    status = await withTimeout(cli.exit, 40_000, `conformance server --url ${url}`);
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
  return { checks, status, output };
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

describe('the conformance reference server (@modelcontextprotocol/conformance 0.1.16), direct vs through selfheal proxy --upstream', opts, () => {
  let server; let proxy; let url;
  before(async () => {
    if (skip) return;
    assert.ok(existsSync(CLI), `${CLI} is missing: run npm ci --prefix e2e`);
    const port = await freePort();
    server = new Proc(NODE, [SERVER], { PORT: String(port) });
    await server.line(/MCP Conformance Test Server running on /, 20_000, 'stdout');
    url = `http://127.0.0.1:${port}/mcp`;
    proxy = await startProxy(['--upstream', url]);
    assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the proxy listens on loopback, at the upstream\'s path');
  });
  after(async () => {
    if (skip) return;
    try {
      if (proxy) {
        const status = await proxy.proxy.stop('SIGTERM');
        assert.deepEqual(status, { code: 0, signal: null }, `the proxy's exit status after SIGTERM\n${proxy.proxy.stderr.slice(-2000)}`);
      }
      if (server) await server.stop('SIGTERM');
    } finally {
      proxy?.proxy.kill();
      server?.kill();
    }
  });

  test('every check has the same status through the proxy as directly; DNS rebinding is refused with 403', async () => {
    const direct = await conformance(url, 'direct');
    // The reference server passes every check directly: 44 SUCCESS, and a
    // few INFO and WARNING lines (server-sse-polling, at protocol 2025-03-26).
    assert.equal(counts(direct.checks).FAILURE, undefined, `direct: no check fails\n${direct.output.slice(-3000)}`);
    assert.equal(counts(direct.checks).SUCCESS, 44, `direct: 44 checks pass, ${JSON.stringify(counts(direct.checks))}`);
    assert.deepEqual(direct.status, { code: 0, signal: null }, `direct: the CLI's exit status\n${direct.output.slice(-3000)}`);

    const through = await conformance(proxy.url, 'proxied');
    const diffs = [];
    for (const key of new Set([...direct.checks.keys(), ...through.checks.keys()])) {
      const d = direct.checks.get(key); const p = through.checks.get(key);
      if (d?.status !== p?.status) {
        diffs.push(`${key}: direct ${d ? describeCheck(d) : 'absent'}\n    through the proxy ${p ? describeCheck(p) : 'absent'}`);
      }
    }
    assert.deepEqual(diffs, [], `checks whose status differs through the proxy (direct ${JSON.stringify(counts(direct.checks))}, `
      + `through the proxy ${JSON.stringify(counts(through.checks))}):\n  ${diffs.join('\n  ')}`);
    assert.deepEqual(through.status, direct.status, `the CLI's exit status through the proxy\n${through.output.slice(-3000)}`);

    // DNS rebinding: Host and Origin evil.example.com refused with 403, the
    // proxy's own host:port served (the CLI sends both to the URL it tests).
    for (const [name, run] of [['direct', direct], ['through the proxy', through]]) {
      const rejected = run.checks.get(REJECTED);
      assert.equal(rejected?.status, 'SUCCESS', `${name}: ${REJECTED}: ${rejected && describeCheck(rejected)}`);
      assert.equal(rejected.check.details.statusCode, 403, `${name}: evil.example.com gets 403: ${describeCheck(rejected)}`);
      assert.equal(rejected.check.details.hostHeader, 'evil.example.com');
      assert.equal(run.checks.get(ACCEPTED)?.status, 'SUCCESS', `${name}: ${ACCEPTED}: ${describeCheck(run.checks.get(ACCEPTED))}`);
    }
  });
});
