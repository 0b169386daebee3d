// The peer harness: the same stdio MCP server (the reference memory
// server) behind `selfheal proxy --listen ADDR -- CMD`, `mcp-proxy` and
// `supergateway --stateful` (one server per session, as selfheal), driven
// by the TypeScript SDK client over Streamable HTTP, in interleaved rounds.
// Not part of go test or e2e (see README.md):
//
//	go build -o /tmp/selfheal ./cmd/selfheal
//	npm ci --prefix bench/peers
//	node bench/peers/peers.mjs --selfheal /tmp/selfheal [--rounds 6] [--warm 1] [--json FILE] [--before PATH]
//
// It prints Markdown: per side the medians over the rounds of each
// round's figures, the ratios of selfheal to each peer in each round with
// in how many rounds the targets hold, and the load average before and
// after; --json writes every sample. --before adds another selfheal
// binary as a side (one without --warm: a change's effect, paired).
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const rounds = Number(args.rounds ?? 6);
const starts = Number(args.starts ?? 3); // sequential session starts per side and round
const burst = Number(args.burst ?? 16);
const calls = Number(args.calls ?? 100);
const pause = Number(args.pause ?? 2000); // ms between sequential session starts
const warm = String(args.warm ?? 1);
if (!args.selfheal) {
  console.error('usage: node peers.mjs --selfheal PATH [--rounds N] [--warm N]');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'selfheal-peers-'));
const server = ['node', join(here, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')];
const env = { ...process.env, MEMORY_FILE_PATH: join(work, 'memory.jsonl') };

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The sides: each a command line serving Streamable HTTP at url.
async function sides() {
  const [a, b, c, d] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const before = args.before
    ? [{ name: 'before', argv: [args.before, 'proxy', '--listen', `127.0.0.1:${d}`, '--', ...server], url: `http://127.0.0.1:${d}/mcp` }]
    : [];
  return [
    ...before,
    {
      name: 'selfheal',
      argv: [args.selfheal, 'proxy', '--listen', `127.0.0.1:${a}`, '--warm', warm, '--', ...server],
      url: `http://127.0.0.1:${a}/mcp`,
    },
    {
      name: 'supergateway',
      argv: ['node', join(here, 'node_modules/supergateway/dist/index.js'), '--stdio', server.join(' '),
        '--outputTransport', 'streamableHttp', '--stateful', '--port', String(b), '--logLevel', 'none'],
      url: `http://127.0.0.1:${b}/mcp`,
    },
    {
      name: 'mcp-proxy',
      argv: ['node', join(here, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs'), '--host', '127.0.0.1', '--port', String(c),
        '--', ...server],
      url: `http://127.0.0.1:${c}/mcp`,
    },
  ];
}

// The process tree under pid: pid and its descendants, from /proc.
function tree(pid) {
  const children = new Map();
  const all = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = stat(Number(name));
    if (!st) continue;
    all.push(st);
  }
  for (const st of all) {
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(st.pid);
  }
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

// stat returns pid's parent, CPU time (ms) and resident memory (KiB).
function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    const tick = 10; // ms per clock tick (USER_HZ 100)
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return { pid, ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) * tick, rss };
  } catch {
    return null;
  }
}

async function up(side) {
  const child = spawn(side.argv[0], side.argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', () => {});
  side.child = child;
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(side.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
      await r.body?.cancel();
      return;
    } catch {
      await sleep(50);
    }
  }
  throw new Error(`${side.name} did not listen`);
}

// session opens a session, calls read_graph, and ends it (DELETE): the
// time to the first result, and the DELETE's.
async function session(url, keep) {
  const t0 = performance.now();
  const client = new Client({ name: 'peers', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  await client.callTool({ name: 'read_graph', arguments: {} });
  const start = performance.now() - t0;
  if (keep) return { start, client, transport };
  const t1 = performance.now();
  await transport.terminateSession();
  const del = performance.now() - t1;
  await client.close();
  return { start, del };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

async function measure(side) {
  const r = { start: [], del: [], burst: 0, call: [], cpuPerCall: 0, ownRss: 0, serversRss: 0 };
  for (let i = 0; i < starts; i++) {
    await sleep(pause); // a warm server has time to be started again
    const { start, del } = await session(side.url);
    r.start.push(start);
    r.del.push(del);
  }
  await sleep(pause);
  const t0 = performance.now();
  const opened = await Promise.all(Array.from({ length: burst }, () => session(side.url, true)));
  r.burst = performance.now() - t0;
  // Memory with the burst's sessions open: the bridge's own, and its
  // servers'.
  const pids = tree(side.child.pid);
  r.ownRss = stat(side.child.pid)?.rss ?? 0;
  r.serversRss = pids.slice(1).reduce((n, p) => n + (stat(p)?.rss ?? 0), 0);
  r.servers = pids.length - 1;
  await Promise.all(opened.map(async ({ client, transport }) => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }));
  // Per-call latency and the bridge's own CPU per call, in one session.
  const { client, transport } = await session(side.url, true);
  const cpu0 = stat(side.child.pid).cpu;
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await client.callTool({ name: 'search_nodes', arguments: { query: 'x' } });
    r.call.push(performance.now() - t);
  }
  r.cpuPerCall = (stat(side.child.pid).cpu - cpu0) / calls;
  await transport.terminateSession().catch(() => {});
  await client.close();
  return r;
}

const load = () => readFileSync('/proc/loadavg', 'utf8').trim();
const all = await sides();
for (const s of all) await up(s);
await sleep(2000);
// Idle memory: the bridge and its servers before any session (selfheal's
// warm server is there).
const idle = Object.fromEntries(all.map((s) => {
  const pids = tree(s.child.pid);
  return [s.name, { ownRss: stat(s.child.pid)?.rss ?? 0, servers: pids.length - 1, serversRss: pids.slice(1).reduce((n, p) => n + (stat(p)?.rss ?? 0), 0) }];
}));
const out = { load: { before: load() }, warm: Number(warm), idle, rounds: [] };
for (let i = 0; i < rounds; i++) {
  const round = {};
  // Rotated order: no side always goes first.
  for (let j = 0; j < all.length; j++) {
    const side = all[(i + j) % all.length];
    round[side.name] = await measure(side);
    process.stderr.write(`round ${i + 1} ${side.name}: start ${median(round[side.name].start).toFixed(0)} ms, ${burst} at once ${round[side.name].burst.toFixed(0)} ms\n`);
  }
  out.rounds.push(round);
}
out.load.after = load();
for (const s of all) s.child.kill('SIGTERM');
await sleep(500);
rmSync(work, { recursive: true, force: true });
if (args.json) writeFileSync(args.json, JSON.stringify(out, null, 1));

// The report. Each round's figure per side: the median of its samples.
const fig = {
  'session start, median (ms)': (r) => median(r.start),
  [`${burst} sessions at once (ms)`]: (r) => r.burst,
  'DELETE, median (ms)': (r) => median(r.del),
  'per call, median (ms)': (r) => median(r.call),
  'own CPU per call (ms)': (r) => r.cpuPerCall,
  [`own RSS, ${burst} sessions open (MiB)`]: (r) => r.ownRss / 1024,
  [`servers' RSS, ${burst} sessions open (MiB)`]: (r) => r.serversRss / 1024,
};
const names = all.map((s) => s.name);
const f1 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const lines = [];
lines.push(`${rounds} interleaved rounds; per round and side ${starts} session starts ${pause} ms apart, ${burst} sessions opened at once, ${calls} calls of search_nodes in one session; --warm ${warm}.`, '');
lines.push(`| figure (median of the rounds) | ${names.join(' | ')} |`, `|---|${names.map(() => '---|').join('')}`);
for (const [k, f] of Object.entries(fig)) {
  lines.push(`| ${k} | ${names.map((n) => f1(median(out.rounds.map((r) => f(r[n]))))).join(' | ')} |`);
}
lines.push('', `idle (before any session): ${names.map((n) => `${n} own ${f1(idle[n].ownRss / 1024)} MiB, ${idle[n].servers} server processes ${f1(idle[n].serversRss / 1024)} MiB`).join('; ')}`, '');
const ratio = (peer, k, f, target) => {
  const rs = out.rounds.map((r) => f(r.selfheal) / f(r[peer]));
  const held = target ? `, ≤ ${target} in ${rs.filter((x) => x <= target).length} of ${rs.length} rounds` : '';
  return `| ${k} | ${peer} | ${median(rs).toFixed(2)} (${rs.map((x) => x.toFixed(2)).join(' ')})${held} |`;
};
lines.push('| selfheal ÷ peer, per round | peer | median (each round) |', '|---|---|---|');
lines.push(ratio('supergateway', 'session start', fig['session start, median (ms)'], 0.5));
lines.push(ratio('supergateway', `${burst} at once`, (r) => r.burst, 1));
for (const peer of ['supergateway', 'mcp-proxy']) {
  if (peer === 'mcp-proxy') {
    lines.push(ratio(peer, 'session start', fig['session start, median (ms)']));
    lines.push(ratio(peer, `${burst} at once`, (r) => r.burst));
  }
  lines.push(ratio(peer, 'per call', fig['per call, median (ms)']));
  lines.push(ratio(peer, 'own CPU per call', (r) => r.cpuPerCall || 0.01));
  lines.push(ratio(peer, 'own RSS', (r) => r.ownRss));
}
if (args.before) {
  lines.push(ratio('before', 'session start', fig['session start, median (ms)']));
  lines.push(ratio('before', `${burst} at once`, (r) => r.burst));
  lines.push(ratio('before', 'DELETE', fig['DELETE, median (ms)']));
}
lines.push('', `load average: before ${out.load.before}; after ${out.load.after}`);
console.log(lines.join('\n'));
process.exit(0);
