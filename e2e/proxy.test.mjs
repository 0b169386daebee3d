// End-to-end: `selfheal proxy -- CMD ARGS…` in front of MCP servers no one
// here wrote (@modelcontextprotocol/server-filesystem and server-everything,
// pinned in package.json) and the project's own example server, driven by a
// raw JSON-RPC client that compares every byte with the server run directly,
// and by the official TypeScript client (@modelcontextprotocol/sdk).
//
//   npm ci --prefix e2e
//   go build -o /tmp/selfheal ./cmd/selfheal
//   SELFHEAL_BIN=/tmp/selfheal node --test e2e/
//
// SELFHEAL_BIN names the proxy binary; without it every test here is skipped.
// MCPSERVER_BIN names a prebuilt examples/mcpserver; without it the tests
// build one with `go build`.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema, ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = process.execPath;
const SELFHEAL = process.env.SELFHEAL_BIN;
const modules = join(root, 'e2e', 'node_modules', '@modelcontextprotocol');
const FS_SERVER = join(modules, 'server-filesystem', 'dist', 'index.js');
const EVERYTHING = join(modules, 'server-everything', 'dist', 'index.js');
const goldenDir = join(root, 'examples', 'mcpserver', 'testdata');

const skip = SELFHEAL ? false
  : 'SELFHEAL_BIN is not set: build the proxy (go build -o /tmp/selfheal ./cmd/selfheal) and run SELFHEAL_BIN=/tmp/selfheal node --test e2e/';
const opts = { skip, timeout: 60_000 };

const proxied = (cmd, args, flags = []) => [SELFHEAL, ['proxy', ...flags, '--', cmd, ...args]];
const fsServer = (dir) => [NODE, [FS_SERVER, dir]];
const everything = () => [NODE, [EVERYTHING, 'stdio']];

let scratch; // a temporary directory for everything this file writes
let mcpserverBin;

before(() => {
  if (skip) return;
  assert.ok(existsSync(SELFHEAL), `SELFHEAL_BIN=${SELFHEAL} does not exist`);
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'selfheal-proxy-e2e-')));
  mcpserverBin = process.env.MCPSERVER_BIN;
  if (!mcpserverBin) {
    mcpserverBin = join(scratch, 'mcpserver');
    const built = spawnSync('go', ['build', '-o', mcpserverBin, './examples/mcpserver'], { cwd: root, stdio: 'inherit' });
    assert.equal(built.status, 0, 'go build ./examples/mcpserver');
  }
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

let fifos = 0;
const newDir = () => mkdtempSync(join(scratch, 'd-'));

// ---------------------------------------------------------------------------
// The raw JSON-RPC client: one process, lines in, lines out, bytes kept.

class Raw {
  // fifo: the process reads a named pipe that only this client writes, so
  // that its stdin stays open when it exits (Node closes a child's stdin pipe
  // then, which would end an orphaned grandchild and hide it).
  constructor([command, args], { env, fifo = false } = {}) {
    this.what = [command, ...args].join(' ');
    if (fifo) {
      const path = join(scratch, `stdin-${++fifos}`);
      assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
      // sh opens the fifo for reading, then becomes the command (same pid).
      this.proc = spawn('sh', ['-c', 'exec "$0" "$@" < "$SELFHEAL_E2E_FIFO"', command, ...args],
        { cwd: root, env: { ...(env ?? process.env), SELFHEAL_E2E_FIFO: path }, stdio: ['ignore', 'pipe', 'pipe'] });
      this.writer = open(path, 'w');
      this.writing = this.writer;
    } else {
      this.proc = spawn(command, args, { cwd: root, env: env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    }
    this.lines = []; // every stdout line in order: { buf, text, msg }
    this.stderr = '';
    this.sent = new Map(); // JSON of each request id the client sent -> method
    this.nextId = 1;
    this.waiters = new Set();
    this.exited = false;
    let partial = [];
    this.proc.stdout.on('data', (chunk) => {
      let start = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        partial.push(chunk.subarray(start, i));
        this.#line(Buffer.concat(partial));
        partial = [];
        start = i + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
    });
    this.proc.stdout.on('end', () => { this.tail = Buffer.concat(partial); });
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (s) => { if (this.stderr.length < 1 << 20) this.stderr += s; });
    this.proc.stdin?.on('error', () => {}); // EPIPE once the process is gone
    // status: when the process exits; exit: when it has exited and its stdout is closed.
    this.status = new Promise((resolve) => { this.proc.on('exit', (code, signal) => resolve({ code, signal })); });
    this.exit = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exited = true;
        for (const w of this.waiters) w();
        resolve({ code, signal });
      });
    });
  }

  #line(buf) {
    const text = buf.toString('utf8');
    let msg;
    try { msg = JSON.parse(text); } catch { msg = undefined; }
    this.lines.push({ buf, text, msg });
    for (const w of this.waiters) w();
  }

  write(text) {
    if (this.writer) this.writing = this.writing.then(async (fh) => { await fh.write(text + '\n'); return fh; });
    else this.proc.stdin.write(text + '\n');
  }

  send(msg) {
    if (msg.id !== undefined && msg.method !== undefined) this.sent.set(JSON.stringify(msg.id), msg.method);
    this.write(JSON.stringify(msg));
  }

  notify(method, params) { this.send({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) }); }

  // request sends a request and resolves with its response line.
  request(method, params, id = this.nextId++) {
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    return this.response(id);
  }

  async call(name, args, id) {
    const line = await this.request('tools/call', { name, arguments: args }, id);
    assert.ok(line.msg.result, `tools/call ${name}: a result, not ${line.text.slice(0, 300)}`);
    return line;
  }

  response(id, ms) {
    return this.waitFor((l) => isResponse(l.msg) && l.msg.id === id, `the response to id ${JSON.stringify(id)}`, ms);
  }

  // waitFor resolves with the first line (from index `from`) matching pred.
  waitFor(pred, what, ms = 20_000, from = 0) {
    return new Promise((resolve, reject) => {
      let i = from;
      const check = () => {
        for (; i < this.lines.length; i++) {
          if (pred(this.lines[i])) { done(); resolve(this.lines[i]); return; }
        }
        if (this.exited) { done(); reject(new Error(`${this.what}: exited before ${what}\n${this.describe()}`)); }
      };
      const timer = setTimeout(() => { done(); reject(new Error(`${this.what}: no ${what} in ${ms} ms\n${this.describe()}`)); }, ms);
      const done = () => { clearTimeout(timer); this.waiters.delete(check); };
      this.waiters.add(check);
      check();
    });
  }

  describe() {
    const last = this.lines.slice(-6).map((l) => `  < ${l.text.slice(0, 400)}`).join('\n');
    return `last lines received:\n${last || '  (none)'}\nstderr:\n${this.stderr.slice(-2000)}`;
  }

  // initialize opens an MCP session; initialized=false leaves out notifications/initialized.
  async initialize({ capabilities = {}, initialized = true, id = 'init' } = {}) {
    const line = await this.request('initialize', {
      protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'selfheal-proxy-e2e', version: '1.0.0' },
    }, id);
    assert.ok(line.msg.result, `initialize: ${line.text.slice(0, 300)}`);
    if (initialized) this.notify('notifications/initialized');
    return line;
  }

  // answered checks that every response carries the id of a request the
  // client sent, and that no request was answered twice.
  answered() {
    const seen = new Map();
    for (const l of this.lines) {
      if (!isResponse(l.msg)) continue;
      const key = JSON.stringify(l.msg.id);
      assert.ok(this.sent.has(key), `a response to id ${key}, which the client never sent: ${l.text.slice(0, 300)}`);
      assert.ok(!seen.has(key), `two responses to id ${key}:\n  ${seen.get(key)}\n  ${l.text.slice(0, 300)}`);
      seen.set(key, l.text.slice(0, 300));
    }
  }

  async close(ms = 10_000) {
    this.answered();
    this.proc.stdin.end();
    return withTimeout(this.exit, ms, `${this.what} to exit once its stdin is closed`);
  }

  kill() {
    if (!this.exited) this.proc.kill('SIGKILL');
    if (this.writer) this.writer.then((fh) => fh.close()).catch(() => {});
    this.writer = undefined;
  }
}

function isResponse(msg) {
  return msg !== null && typeof msg === 'object' && !Array.isArray(msg) && 'id' in msg && !('method' in msg);
}

function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms); }),
  ]);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// session runs fn against a raw client of cmd and closes it (status 0 expected).
async function session(cmd, fn, init) {
  const raw = new Raw(cmd);
  try {
    if (init !== false) await raw.initialize(init);
    const out = await fn(raw);
    const status = await raw.close();
    assert.deepEqual(status, { code: 0, signal: null }, `${raw.what}: exit status\n${raw.stderr.slice(-2000)}`);
    return out;
  } finally {
    raw.kill();
  }
}

// bytesEqual asserts two raw lines are the same bytes, with a readable diff.
function bytesEqual(proxiedLine, directLine, what) {
  if (Buffer.compare(proxiedLine.buf, directLine.buf) === 0) return;
  let i = 0;
  while (i < proxiedLine.buf.length && proxiedLine.buf[i] === directLine.buf[i]) i++;
  assert.fail(`${what}: through the proxy the line differs from direct at byte ${i}\n`
    + `  proxied: …${proxiedLine.text.slice(Math.max(0, i - 80), i + 200)}\n`
    + `  direct:  …${directLine.text.slice(Math.max(0, i - 80), i + 200)}`);
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

// issuesOf returns the issues of a validation error: in _meta when the tool
// has an output schema (structuredContent would fail it), else in structuredContent.
function issuesOf(result, hasOutputSchema) {
  if (hasOutputSchema) {
    assert.equal(result.structuredContent, undefined, 'no structuredContent for a tool with an outputSchema');
    assert.ok(Array.isArray(result._meta?.['selfheal/issues']?.issues), `_meta["selfheal/issues"]: ${JSON.stringify(result).slice(0, 500)}`);
    return result._meta['selfheal/issues'].issues;
  }
  assert.ok(Array.isArray(result.structuredContent?.issues), `structuredContent.issues: ${JSON.stringify(result).slice(0, 500)}`);
  return result.structuredContent.issues;
}

// fieldLines returns the <field> lines of a validation_error text.
const fieldLines = (text) => text.split('\n').filter((l) => l.trimStart().startsWith('<field '));

// ---------------------------------------------------------------------------
// Process helpers: the proxy's child, found through /proc.

function procStat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

function childrenOf(pid) {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((p) => procStat(p)?.ppid === pid);
}

const alive = (pid) => { const s = procStat(pid); return s !== undefined && s.state !== 'Z'; };

async function childOf(pid, script) {
  for (let i = 0; i < 100; i++) {
    const kids = childrenOf(pid).filter((p) => {
      try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(script); } catch { return false; }
    });
    if (kids.length === 1) return kids[0];
    await sleep(50);
  }
  assert.fail(`no child running ${script} under the proxy (pid ${pid})`);
}

async function gone(pid, ms = 2000) {
  for (let t = 0; t < ms; t += 50) {
    if (!alive(pid)) return;
    await sleep(50);
  }
  assert.fail(`the child ${pid} is still running after the proxy exited (an orphan): ${readFileSync(`/proc/${pid}/cmdline`, 'utf8')}`);
}

// ---------------------------------------------------------------------------
// server-filesystem

const TERSE = /^MCP error -32602: Input validation error: Invalid arguments for tool write_file: /;

describe('server-filesystem, raw JSON-RPC, direct vs through the proxy', opts, () => {
  let dir;
  before(() => { dir = newDir(); });

  test('initialize and tools/list are byte-identical', async () => {
    const run = (cmd) => session(cmd, async (raw) => [raw.lines[0], await raw.request('tools/list')]);
    const [dInit, dList] = await run(fsServer(dir));
    const [pInit, pList] = await run(proxied(...fsServer(dir)));
    bytesEqual(pInit, dInit, 'initialize');
    bytesEqual(pList, dList, 'tools/list');
    const edit = pList.msg.result.tools.find((t) => t.name === 'edit_file');
    assert.ok(edit.inputSchema.properties.dryRun, 'edit_file declares dryRun');
    assert.notEqual(edit.inputSchema.additionalProperties, false, 'edit_file\'s schema is open: the server drops unknown keys');
  });

  test('write_file with "contents": the server\'s terse line directly, a validation_error naming both keys through the proxy', async () => {
    const file = join(dir, 'a.txt');
    const args = { path: file, contents: 'x' };
    const direct = await session(fsServer(dir), async (raw) => {
      await raw.request('tools/list');
      return raw.call('write_file', args);
    });
    const through = await session(proxied(...fsServer(dir)), async (raw) => {
      await raw.request('tools/list');
      return raw.call('write_file', args);
    });
    // What the model reads without the proxy: one line that never names 'contents'.
    const said = direct.msg.result.content[0].text;
    assert.equal(direct.msg.result.isError, true);
    assert.match(said, TERSE);
    assert.ok(said.endsWith('at content'), said);
    assert.ok(!said.includes('contents'), `the server does not name the key the model sent: ${said}`);
    // Through the proxy: a validation_error about 'contents' and 'content'.
    const text = validationError(through.msg.result, 'write_file');
    assert.match(text, /\bcontents\b/, `names the key sent:\n${text}`);
    assert.match(text, /(['"])content\1/, `names the key expected:\n${text}`);
    assert.match(text, /did you mean/i, `a did-you-mean:\n${text}`);
    assert.notEqual(text, said);
    const issues = issuesOf(through.msg.result, true);
    assert.ok(JSON.stringify(issues).includes('"contents"'), `the issues name 'contents': ${JSON.stringify(issues)}`);
    assert.equal(through.msg.jsonrpc, '2.0');
    assert.equal(existsSync(file), false, 'nothing was written');
  });

  test('edit_file with "dryrun": the server edits the file for real, the proxy stops the call', async () => {
    const a = join(dir, 'edit-proxied.txt');
    const b = join(dir, 'edit-direct.txt');
    writeFileSync(a, 'alpha\n');
    writeFileSync(b, 'alpha\n');
    const edit = (path) => ({ path, edits: [{ oldText: 'alpha', newText: 'beta' }], dryrun: true });

    const through = await session(proxied(...fsServer(dir)), async (raw) => {
      await raw.request('tools/list');
      return raw.call('edit_file', edit(a));
    });
    const text = validationError(through.msg.result, 'edit_file');
    assert.match(text, /\bdryrun\b/, `names the key sent:\n${text}`);
    assert.match(text, /\bdryRun\b/, `names the key expected:\n${text}`);
    assert.ok(JSON.stringify(issuesOf(through.msg.result, true)).includes('"dryrun"'));
    assert.equal(readFileSync(a, 'utf8'), 'alpha\n', 'through the proxy the file is unchanged');

    // Directly the misspelt dry run is a real edit: what the test would catch.
    const direct = await session(fsServer(dir), async (raw) => {
      await raw.request('tools/list');
      return raw.call('edit_file', edit(b));
    });
    assert.equal(direct.msg.result.isError, undefined, direct.text);
    assert.match(direct.msg.result.content[0].text, /-alpha\n\+beta/);
    assert.equal(readFileSync(b, 'utf8'), 'beta\n', 'directly the server edited the file');
  });

  test('valid calls are forwarded: the same bytes direct and through the proxy', async () => {
    const file = join(dir, 'valid.txt');
    const run = (cmd) => session(cmd, async (raw) => {
      await raw.request('tools/list');
      rmSync(file, { force: true });
      const wrote = await raw.call('write_file', { path: file, content: 'first line\nsecond line é\n' });
      const read = await raw.call('read_text_file', { path: file });
      const old = await raw.call('read_file', { path: file, head: 1 });
      const preview = await raw.call('edit_file', { path: file, edits: [{ oldText: 'first', newText: '1st' }], dryRun: true });
      const unchanged = readFileSync(file, 'utf8');
      return { wrote, read, old, preview, unchanged };
    });
    const d = await run(fsServer(dir));
    const p = await run(proxied(...fsServer(dir)));
    for (const k of ['wrote', 'read', 'old', 'preview']) bytesEqual(p[k], d[k], k);
    assert.equal(p.read.msg.result.structuredContent.content, 'first line\nsecond line é\n');
    assert.equal(p.unchanged, 'first line\nsecond line é\n', 'dryRun, correctly spelt, reaches the server and only previews');
  });

  test('a malformed line is answered by the server, not the proxy', async () => {
    const run = (cmd) => session(cmd, async (raw) => {
      await raw.request('tools/list');
      const from = raw.lines.length;
      raw.write('{not json');
      raw.write('[1, 2');
      raw.send({ jsonrpc: '2.0', id: 'u1', method: 'no/such/method' });
      raw.send({ jsonrpc: '2.0', method: 'notifications/no_such_notification' });
      await raw.request('ping', undefined, 'last');
      return raw.lines.slice(from);
    });
    const d = await run(fsServer(dir));
    const p = await run(proxied(...fsServer(dir)));
    assert.deepEqual(p.map((l) => l.text), d.map((l) => l.text), 'the same lines direct and through the proxy');
    // The TypeScript SDK answers no malformed line: the proxy must not either.
    assert.ok(!p.some((l) => l.msg?.error?.code === -32700), 'no parse error invented by the proxy');
  });

  test('a 5 MiB write_file and its read pass intact', async () => {
    const file = join(dir, 'big.txt');
    const chunk = 'selfheal ✓ 0123456789 abcdefghijklmnopqrstuvwxyz "quoted" \\ back\n';
    const content = chunk.repeat(Math.ceil((5 << 20) / chunk.length));
    const run = (cmd) => session(cmd, async (raw) => {
      await raw.request('tools/list');
      rmSync(file, { force: true });
      const wrote = await raw.call('write_file', { path: file, content });
      assert.equal(readFileSync(file, 'utf8'), content, 'the file on disk is what was sent');
      const read = await raw.call('read_text_file', { path: file });
      return { wrote, read };
    });
    const d = await run(fsServer(dir));
    const p = await run(proxied(...fsServer(dir)));
    bytesEqual(p.wrote, d.wrote, 'write_file');
    bytesEqual(p.read, d.read, 'read_text_file');
    assert.equal(p.read.msg.result.structuredContent.content, content);
    assert.ok(p.read.buf.length > 5 << 20);
  });
});

describe('server-filesystem through the proxy with --typos=off', opts, () => {
  test('the misspelt dryrun is forwarded and the edit happens', async () => {
    const dir = newDir();
    const file = join(dir, 'typos-off.txt');
    writeFileSync(file, 'alpha\n');
    const res = await session(proxied(...fsServer(dir), ['--typos=off']), async (raw) => {
      await raw.request('tools/list');
      return raw.call('edit_file', { path: file, edits: [{ oldText: 'alpha', newText: 'beta' }], dryrun: true });
    });
    assert.equal(res.msg.result.isError, undefined, res.text);
    assert.equal(readFileSync(file, 'utf8'), 'beta\n', 'with --typos=off the server got the call');
  });

  test('a missing required key is still answered by the proxy', async () => {
    const dir = newDir();
    const res = await session(proxied(...fsServer(dir), ['--typos=off']), async (raw) => {
      await raw.request('tools/list');
      return raw.call('write_file', { path: join(dir, 'a.txt'), contents: 'x' });
    });
    const text = validationError(res.msg.result, 'write_file');
    assert.ok(fieldLines(text).some((l) => l.includes('name="content"')), text);
  });
});

// The official TypeScript client, spawning the proxy as a user's client
// configuration would.
async function tsClient(command, args, { capabilities = {}, setup } = {}) {
  const transport = new StdioClientTransport({ command, args, cwd: root, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (s) => { stderr += s; });
  const client = new Client({ name: 'selfheal-proxy-e2e', version: '1.0.0' }, { capabilities });
  setup?.(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe('server-filesystem, the official TypeScript client through the proxy', opts, () => {
  let dir;
  let direct;
  let through;
  before(async () => {
    dir = newDir();
    direct = await tsClient(...fsServer(dir));
    through = await tsClient(...proxied(...fsServer(dir)));
  });
  after(async () => {
    await direct?.client.close();
    await through?.client.close();
  });

  test('listTools: the same tools direct and through the proxy', async () => {
    assert.deepEqual(await through.client.listTools(), await direct.client.listTools());
  });

  test('write_file with "contents": validation_error through the proxy, the terse line directly', async () => {
    const args = { path: join(dir, 'ts-a.txt'), contents: 'x' };
    const d = await direct.client.callTool({ name: 'write_file', arguments: args });
    const p = await through.client.callTool({ name: 'write_file', arguments: args });
    assert.equal(d.isError, true);
    assert.match(d.content[0].text, TERSE);
    const text = validationError(p, 'write_file');
    assert.match(text, /\bcontents\b/);
    assert.match(text, /(['"])content\1/);
    issuesOf(p, true);
    assert.equal(existsSync(args.path), false);
  });

  test('edit_file with "dryrun" leaves the file unchanged', async () => {
    const file = join(dir, 'ts-edit.txt');
    writeFileSync(file, 'one\ntwo\n');
    const p = await through.client.callTool({
      name: 'edit_file', arguments: { path: file, edits: [{ oldText: 'one', newText: 'uno' }], dryrun: true },
    });
    const text = validationError(p, 'edit_file');
    assert.match(text, /\bdryrun\b/);
    assert.match(text, /\bdryRun\b/);
    assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\n');
  });

  test('valid write_file and read_text_file: the same results as direct', async () => {
    const file = join(dir, 'ts-valid.txt');
    const w = { name: 'write_file', arguments: { path: file, content: 'hello\n' } };
    const r = { name: 'read_text_file', arguments: { path: file } };
    const dw = await direct.client.callTool(w);
    const dr = await direct.client.callTool(r);
    rmSync(file);
    const pw = await through.client.callTool(w);
    const pr = await through.client.callTool(r);
    assert.deepEqual(pw, dw);
    assert.deepEqual(pr, dr);
    assert.equal(pr.structuredContent.content, 'hello\n');
  });

  test('the server\'s stderr is the proxy\'s', () => {
    assert.match(through.stderr(), /Secure MCP Filesystem Server running on stdio/);
  });
});

// ---------------------------------------------------------------------------
// server-everything

describe('server-everything, raw JSON-RPC, direct vs through the proxy', opts, () => {
  test('initialize and tools/list are byte-identical', async () => {
    const run = (cmd) => session(cmd, async (raw) => [raw.lines[0], await raw.request('tools/list')]);
    const [dInit, dList] = await run(everything());
    const [pInit, pList] = await run(proxied(...everything()));
    bytesEqual(pInit, dInit, 'initialize');
    bytesEqual(pList, dList, 'tools/list');
  });

  test('progress notifications pass through, in order and as they come', async () => {
    const run = (cmd) => session(cmd, async (raw) => {
      await raw.request('tools/list');
      const from = raw.lines.length;
      const times = [];
      const t0 = Date.now();
      const waitProgress = raw.waitFor((l) => l.msg?.method === 'notifications/progress', 'the first progress', 20_000, from)
        .then(() => times.push(Date.now() - t0));
      raw.send({
        jsonrpc: '2.0', id: 'long', method: 'tools/call',
        params: { name: 'trigger-long-running-operation', arguments: { duration: 1.2, steps: 2 }, _meta: { progressToken: 'tok-1' } },
      });
      await waitProgress;
      await raw.response('long');
      times.push(Date.now() - t0);
      return { lines: raw.lines.slice(from), times };
    });
    const d = await run(everything());
    const p = await run(proxied(...everything()));
    assert.deepEqual(p.lines.map((l) => l.text), d.lines.map((l) => l.text));
    const progress = p.lines.filter((l) => l.msg?.method === 'notifications/progress');
    assert.deepEqual(progress.map((l) => l.msg.params), [
      { progress: 1, total: 2, progressToken: 'tok-1' }, { progress: 2, total: 2, progressToken: 'tok-1' },
    ]);
    // Not held back: the first step's notification comes well before the result.
    assert.ok(p.times[1] - p.times[0] > 300, `progress at ${p.times[0]} ms, result at ${p.times[1]} ms`);
  });

  test('notifications/tools/list_changed passes; the tools it announces are checked once listed again', async () => {
    const run = (cmd) => session(cmd, async (raw) => {
      // tools/list before notifications/initialized: the server has not yet
      // registered the tools that depend on the client's capabilities.
      const before = await raw.request('tools/list');
      const from = raw.lines.length;
      raw.notify('notifications/initialized');
      const changed = await raw.waitFor((l) => l.msg?.method === 'notifications/tools/list_changed', 'notifications/tools/list_changed', 10_000, from);
      await sleep(200); // the server sends one per tool it registers
      const after = await raw.request('tools/list');
      const bad = await raw.call('trigger-sampling-request', { prompt: 42 });
      return { before, changed, after, bad, notes: raw.lines.slice(from).filter((l) => l.msg?.method === 'notifications/tools/list_changed') };
    }, { capabilities: { sampling: {} }, initialized: false });
    const d = await run(everything());
    const p = await run(proxied(...everything()));
    bytesEqual(p.before, d.before, 'tools/list before');
    bytesEqual(p.changed, d.changed, 'notifications/tools/list_changed');
    assert.equal(p.notes.length, d.notes.length, 'as many list_changed notifications');
    bytesEqual(p.after, d.after, 'tools/list after');
    const names = (l) => l.msg.result.tools.map((t) => t.name);
    assert.ok(!names(p.before).includes('trigger-sampling-request'));
    assert.ok(names(p.after).includes('trigger-sampling-request'));
    // Directly: the SDK's terse line. Through the proxy: a validation_error.
    assert.match(d.bad.msg.result.content[0].text, /^MCP error -32602: .*at prompt$/);
    const text = validationError(p.bad.msg.result, 'trigger-sampling-request');
    assert.ok(fieldLines(text)[0].includes('name="prompt"'), text);
    issuesOf(p.bad.msg.result, false);
  });

  test('get-sum with a string: the proxy answers with a validation_error; a valid call is forwarded', async () => {
    const run = (cmd) => session(cmd, async (raw) => {
      await raw.request('tools/list');
      return { bad: await raw.call('get-sum', { a: '1', b: 2 }), ok: await raw.call('get-sum', { a: 1, b: 2 }) };
    });
    const d = await run(everything());
    const p = await run(proxied(...everything()));
    bytesEqual(p.ok, d.ok, 'a valid get-sum');
    assert.equal(d.bad.msg.result.content[0].text,
      'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a');
    const text = validationError(p.bad.msg.result, 'get-sum');
    const fields = fieldLines(text);
    assert.equal(fields.length, 1, text);
    assert.ok(fields[0].includes('name="a"') && fields[0].includes("'1'"), text);
    assert.deepEqual(issuesOf(p.bad.msg.result, false).map((i) => [i.code, i.path]), [['invalid_type', ['a']]]);
  });

  test('200 calls in flight, valid and not: each answered once, by the server or by the proxy', async () => {
    await session(proxied(...everything()), async (raw) => {
      await raw.request('tools/list');
      const pending = [];
      for (let i = 0; i < 200; i++) {
        const id = `c${i}`;
        const args = i % 2 ? { a: i, b: 1 } : { a: String(i), b: 1 };
        raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get-sum', arguments: args } });
        pending.push(raw.response(id).then((l) => [i, l]));
      }
      for (const [i, l] of await Promise.all(pending)) {
        if (i % 2) assert.equal(l.msg.result.content[0].text, `The sum of ${i} and 1 is ${i + 1}.`);
        else assert.ok(fieldLines(validationError(l.msg.result, 'get-sum'))[0].includes(`'${i}'`), l.text);
      }
    });
  });

  test('a server-to-client request (sampling) and its answer pass, ids shared by both directions', async () => {
    // The client's tools/call has id 0, the same id as the server's first
    // request to the client; a bad call is answered by the proxy while the
    // sampling request waits for the client.
    const run = (cmd) => session(cmd, async (raw) => {
      await raw.request('tools/list', undefined, 'list');
      await sleep(200);
      await raw.request('tools/list', undefined, 'list2');
      const from = raw.lines.length;
      raw.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } } });
      const asked = await raw.waitFor((l) => l.msg?.method === 'sampling/createMessage', 'sampling/createMessage', 10_000, from);
      const bad = await raw.call('get-sum', { a: 1 }, 1);
      raw.send({ jsonrpc: '2.0', id: asked.msg.id, result: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'e2e' } });
      const done = await raw.response(0);
      return { asked, bad, done };
    }, { capabilities: { sampling: {} } });
    const d = await run(everything());
    const p = await run(proxied(...everything()));
    bytesEqual(p.asked, d.asked, 'sampling/createMessage');
    assert.equal(p.asked.msg.id, 0);
    bytesEqual(p.done, d.done, 'the tool result after sampling');
    assert.match(p.done.msg.result.content[0].text, /"sampled"/);
    assert.equal(p.bad.msg.id, 1);
    validationError(p.bad.msg.result, 'get-sum');
  });
});

describe('server-everything, the official TypeScript client through the proxy', opts, () => {
  let ts;
  let changed = 0;
  let listChanged;
  before(async () => {
    listChanged = new Promise((resolve) => {
      ts = tsClient(...proxied(...everything()), {
        capabilities: { sampling: {} },
        setup(client) {
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; resolve(); });
          client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
            role: 'assistant', model: 'e2e', content: { type: 'text', text: `echo: ${req.params.messages[0].content.text}` },
          }));
        },
      });
    });
    ts = await ts;
  });
  after(async () => { await ts?.client.close(); });

  test('notifications/tools/list_changed reaches the client; the new tools are listed and checked', async () => {
    await withTimeout(listChanged, 10_000, 'notifications/tools/list_changed');
    assert.ok(changed >= 1);
    const { tools } = await ts.client.listTools();
    assert.ok(tools.some((t) => t.name === 'trigger-sampling-request'));
    const res = await ts.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 'ten' } });
    const text = validationError(res, 'trigger-sampling-request');
    assert.ok(fieldLines(text).some((l) => l.includes('name="maxTokens"')), text);
  });

  test('progress notifications reach onprogress', async () => {
    const seen = [];
    const res = await ts.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
      undefined,
      { onprogress: (p) => seen.push([p.progress, p.total]) },
    );
    assert.equal(res.isError, undefined);
    // The SDK client drops a progress notification that it reads after the
    // result, as the last one often is, direct or not (the raw test above
    // checks that every one passes): the first ones, in order.
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    assert.deepEqual(seen, [[1, 3], [2, 3], [3, 3]].slice(0, seen.length));
  });

  test('sampling: the server asks the client through the proxy', async () => {
    const res = await ts.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'ping', maxTokens: 5 } });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.match(res.content[0].text, /echo: Resource trigger-sampling-request context: ping/);
  });

  test('get-sum with a string: validation_error; a valid call: the sum', async () => {
    await ts.client.listTools();
    const bad = await ts.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 'two' } });
    const text = validationError(bad, 'get-sum');
    assert.ok(fieldLines(text)[0].includes('name="b"'), text);
    const ok = await ts.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    assert.equal(ok.content[0].text, 'The sum of 1 and 2 is 3.');
  });
});

// ---------------------------------------------------------------------------
// examples/mcpserver (Go, selfheal inside): the proxy answers first, with the
// same result the Go integration gives.

function golden(name) {
  const lines = readFileSync(join(goldenDir, `${name}.golden`), 'utf8').split('\n');
  const want = { isError: lines[0] === 'isError: true', texts: [], structured: undefined, metaIssues: undefined };
  let section = null;
  let buf = [];
  const flush = () => {
    if (section === null) return;
    const body = buf.join('\n');
    if (section === 'text') want.texts.push(body);
    else if (section === 'structuredContent') want.structured = JSON.parse(body);
    else if (section === '_meta.selfheal/issues') want.metaIssues = JSON.parse(body);
    else throw new Error(`unknown golden section ${section}`);
  };
  for (const line of lines.slice(1, -1)) {
    if (line.startsWith('--- ')) { flush(); section = line.slice(4); buf = []; } else buf.push(line);
  }
  flush();
  return want;
}

function checkGolden(res, want) {
  assert.equal(res.isError ?? false, want.isError, 'isError');
  assert.deepEqual(res.content.map((c) => c.text), want.texts);
  if (want.structured !== undefined) assert.deepEqual(res.structuredContent, want.structured);
  if (want.metaIssues !== undefined) assert.deepEqual(res._meta?.['selfheal/issues'], want.metaIssues);
  if (want.isError) assert.equal(res.structuredContent, undefined);
}

const mcpserver = () => [mcpserverBin, []];

describe('examples/mcpserver, raw JSON-RPC, direct vs through the proxy', opts, () => {
  const bad = { name: 'A', emial: 'ada@example.com', age: '36', role: 'Admin' };

  test('tools/list is byte-identical; a bad users.create gets a validation_error that names emial', async () => {
    const run = (cmd) => session(cmd, async (raw) => {
      const list = await raw.request('tools/list');
      return { list, bad: await raw.call('users.create', bad), missing: await raw.call('users.create', { name: 'Ada', role: 'admin' }) };
    });
    const d = await run(mcpserver());
    const p = await run(proxied(...mcpserver()));
    bytesEqual(p.list, d.list, 'tools/list');
    const text = validationError(p.bad.msg.result, 'users.create');
    assert.ok(fieldLines(text).some((l) => /'emial'/.test(l)), text);
    assert.ok(fieldLines(text).some((l) => l.includes('name="email"') && l.includes('Required field is missing')), text);
    const missing = validationError(p.missing.msg.result, 'users.create');
    assert.match(fieldLines(missing)[0], /name="email"/, missing);
    // The same answer the Go integration gives.
    assert.deepEqual(p.bad.msg.result, d.bad.msg.result);
    assert.deepEqual(p.missing.msg.result, d.missing.msg.result);
  });

  test('--log: the proxy answered the bad call itself, and logged no value sent', async () => {
    const log = join(newDir(), 'proxy.log');
    await session(proxied(...mcpserver(), ['--log', log]), async (raw) => {
      await raw.request('tools/list');
      await raw.call('users.create', bad);
      await raw.call('billing.get_invoice', { id: 'inv_2026_0002' }); // valid: forwarded, not logged
    });
    const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(entries.length, 1, JSON.stringify(entries));
    const json = JSON.stringify(entries[0]);
    assert.ok(json.includes('users.create'), json);
    assert.ok(json.includes('unrecognized_keys'), json);
    assert.ok(!json.includes('ada@example.com') && !json.includes('Admin') && !json.includes('"36"'), `no values sent: ${json}`);
  });

  test('a malformed line: the Go server gives up (status 1), and so does the proxy, with the same output', async () => {
    const run = async (cmd) => {
      const raw = new Raw(cmd);
      try {
        await raw.initialize();
        await raw.request('tools/list');
        raw.write('{not json');
        const status = await withTimeout(raw.exit, 10_000, `${raw.what} to exit`);
        return { status, lines: raw.lines.map((l) => l.text) };
      } finally {
        raw.kill();
      }
    };
    const d = await run(mcpserver());
    const p = await run(proxied(...mcpserver()));
    assert.deepEqual(d.status, { code: 1, signal: null });
    assert.deepEqual(p.status, d.status, 'the child\'s exit status is the proxy\'s');
    assert.deepEqual(p.lines, d.lines);
  });
});

describe('examples/mcpserver, the official TypeScript client through the proxy', opts, () => {
  let ts;
  let log;
  before(async () => {
    log = join(newDir(), 'proxy.log');
    ts = await tsClient(...proxied(...mcpserver(), ['--log', log]));
    await ts.client.listTools(); // what every client does first, and how the proxy learns the schemas
  });
  after(async () => { await ts?.client.close(); });

  const cases = [
    ['invalid_type', 'users.create', { name: 42, email: 'ada@example.com', role: 'admin', age: '36', tags: 'vip' }],
    ['many_issues', 'users.create', { name: 'A', emial: 'ada@example.com', age: '36', role: 'Admin' }],
    ['invalid_union', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', payment: { type: 'card', last4: '12' } }],
    ['not_multiple_of', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', amount_min: 10.005 }],
    ['arguments_array', 'users.create', ['Ada', 'ada@example.com']],
    ['ok_get_invoice', 'billing.get_invoice', { id: 'inv_2026_0002' }],
    ['not_found', 'billing.get_invoice', { id: 'inv_2026_9999' }],
    ['warning_deprecated', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', status: 'open', page_size: 2 }],
  ];
  for (const [name, tool, args] of cases) {
    test(`${tool}: ${name} is the Go integration's answer (golden)`, async () => {
      checkGolden(await ts.client.callTool({ name: tool, arguments: args }), golden(name));
    });
  }

  test('users.create: the client declares its language in the call\'s _meta (golden locale_ja)', async () => {
    const res = await ts.client.callTool({
      name: 'users.create',
      arguments: { name: 'A', email: 'ada@example.com', role: 'Admin' },
      _meta: { 'selfheal/locale': 'ja' },
    });
    checkGolden(res, golden('locale_ja'));
  });

  test('users.create: absent arguments', async () => {
    const res = await ts.client.callTool({ name: 'users.create' });
    assert.equal(res.isError, true);
    assert.equal(res.content[0].text, `<validation_error action="users.create">
  <field name="(root)">Required field is missing. You sent: nothing. Expected an object.</field>
  <field name="email">Required field is missing. You sent: nothing. Expected a string.</field>
  <field name="name">Required field is missing. You sent: nothing. Expected a string.</field>
  <field name="role">Required field is missing. You sent: nothing. Expected a value.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`);
  });

  // The Go server would give the same answers: the log shows who answered.
  test('the proxy answered the invalid calls and forwarded the others (--log)', () => {
    const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const invalid = cases.filter(([name]) => golden(name).texts[0].startsWith('<validation_error')).map(([, tool]) => tool);
    assert.equal(invalid.length, 5);
    assert.deepEqual(entries.map((e) => e.tool), [...invalid, 'users.create', 'users.create']);
    assert.ok(entries.every((e) => e.answer === undefined || e.answer === 'validation_error'), JSON.stringify(entries));
  });
});

// ---------------------------------------------------------------------------
// A scripted server (fixtures/paged-server.mjs): tools/list in two pages, and
// a tool whose schema changes, announced by notifications/tools/list_changed.

const paged = () => [NODE, [join(root, 'e2e', 'fixtures', 'paged-server.mjs')]];

describe('a scripted server: every page of tools/list, re-learning after list_changed, ids', opts, () => {
  test('a tool listed on the second page is checked', async () => {
    await session(proxied(...paged()), async (raw) => {
      const one = await raw.request('tools/list');
      assert.equal(one.msg.result.nextCursor, 'page-2');
      await raw.request('tools/list', { cursor: 'page-2' });
      validationError((await raw.call('first', { n: 'one' })).msg.result, 'first');
      validationError((await raw.call('second', { a: 'one' })).msg.result, 'second');
      assert.equal((await raw.call('second', { a: 1 })).msg.result.content[0].text, 'server got second {"a":1}');
    });
  });

  test('after notifications/tools/list_changed and a new tools/list, the new schema is the one checked', async () => {
    await session(proxied(...paged()), async (raw) => {
      await raw.request('tools/list');
      await raw.request('tools/list', { cursor: 'page-2' });
      const from = raw.lines.length;
      await raw.request('test/change');
      await raw.waitFor((l) => l.msg?.method === 'notifications/tools/list_changed', 'notifications/tools/list_changed', 5000, from);
      await raw.request('tools/list');
      const page2 = await raw.request('tools/list', { cursor: 'page-2' });
      assert.deepEqual(page2.msg.result.tools[0].inputSchema.required, ['b']);
      const old = await raw.call('second', { a: 1 }); // valid before the change, not after
      const text = validationError(old.msg.result, 'second');
      assert.ok(fieldLines(text).some((l) => l.includes('name="b"')), text);
      assert.equal((await raw.call('second', { b: 'x' })).msg.result.content[0].text, 'server got second {"b":"x"}');
    });
  });

  test('the proxy answers with the request\'s own id, byte for byte', async () => {
    await session(proxied(...paged()), async (raw) => {
      await raw.request('tools/list');
      await raw.request('tools/list', { cursor: 'page-2' });
      const ids = ['x-1', 0, -7, 'ünïcödé', '9007199254740993'];
      for (const id of ids) {
        const res = await raw.call('first', {}, id);
        validationError(res.msg.result, 'first');
      }
      // A number beyond 2^53 must come back as written, not rounded.
      raw.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"first","arguments":{}}}');
      raw.sent.set('9007199254740992', 'tools/call'); // how JSON.parse reads it
      const big = await raw.waitFor((l) => /"id":\s*9007199254740993\s*[,}]/.test(l.text), 'a response with id 9007199254740993', 5000);
      validationError(big.msg.result, 'first');
    });
  });
});

// ---------------------------------------------------------------------------
// The process: stdin, exit status, signals, stderr.

describe('the proxy as a process', opts, () => {
  test('bytes in, the same bytes out: `proxy -- cat` echoes every line, JSON or not', async () => {
    const lines = [
      '{not json',
      '',
      'plain text, not JSON at all',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      '{ "jsonrpc" : "2.0" , "method" : "no/such" , "params" : { "b" : 1 , "a" : [ 1.50 , 1e400 , -0 ] } }',
      '[{"jsonrpc":"2.0","id":"batch","method":"ping"},{"jsonrpc":"2.0","method":"x"}]',
      '{"jsonrpc":"2.0","id":2,"result":{"text":"\\u00e9 é \\u2028 \\ud83d\\ude00 😀 <>&"}}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"never_listed","arguments":{"dryrun":true}}}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{"a":1},"a":2,"a":3}}',
      `{"jsonrpc":"2.0","method":"big","params":{"s":"${'x'.repeat(3 << 20)}"}}`,
      'carriage return at the end\r',
      '3',
      'null',
    ];
    const input = Buffer.concat([
      Buffer.from(lines.join('\n') + '\n'),
      Buffer.from([0xff, 0xfe, 0x22, 0x0a]), // not UTF-8
      Buffer.from('{"jsonrpc":"2.0","method":"the last line has no newline"}'),
    ]);
    const raw = new Raw(proxied('cat', []));
    try {
      raw.proc.stdin.end(input);
      const status = await withTimeout(raw.exit, 10_000, 'proxy -- cat to exit');
      assert.deepEqual(status, { code: 0, signal: null }, raw.stderr);
      const out = Buffer.concat(raw.lines.flatMap((l) => [l.buf, Buffer.from('\n')]).concat(raw.tail ?? []));
      if (Buffer.compare(out, input) !== 0) {
        const want = input.toString('latin1').split('\n');
        const got = out.toString('latin1').split('\n');
        const i = want.findIndex((l, k) => l !== got[k]);
        assert.fail(`line ${i} differs:\n  sent:     ${JSON.stringify(want[i]?.slice(0, 200))}\n  received: ${JSON.stringify(got[i]?.slice(0, 200))}\n(${got.length} lines received for ${want.length} sent)`);
      }
    } finally {
      raw.kill();
    }
  });

  test('the client closes stdin: the child\'s stdin is closed, the proxy waits for it and exits 0', async () => {
    const dir = newDir();
    const raw = new Raw(proxied(...fsServer(dir)));
    try {
      await raw.initialize();
      const child = await childOf(raw.proc.pid, FS_SERVER);
      raw.answered();
      raw.proc.stdin.end();
      const status = await withTimeout(raw.status, 10_000, 'the proxy to exit once its stdin is closed');
      assert.deepEqual(status, { code: 0, signal: null }, raw.stderr);
      assert.ok(!alive(child), 'the proxy exited after its child, not before');
    } finally {
      raw.kill();
    }
  });

  test('the child\'s exit status is the proxy\'s', () => {
    for (const code of [0, 3, 42]) {
      const r = spawnSync(SELFHEAL, ['proxy', '--', NODE, '-e', `setTimeout(() => process.exit(${code}), 100)`], { timeout: 10_000 });
      assert.equal(r.status, code, `child exit ${code}: ${r.stderr}`);
    }
  });

  test('a child that cannot be started: one clear line on stderr, exit 2', () => {
    const missing = join(scratch, 'no-such-server');
    const r = spawnSync(SELFHEAL, ['proxy', '--', missing], { timeout: 10_000, encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    const errLines = r.stderr.trimEnd().split('\n');
    assert.equal(errLines.length, 1, `one line: ${r.stderr}`);
    assert.ok(errLines[0].includes('no-such-server'), errLines[0]);
    assert.equal(r.stdout, '');
  });

  test('the child\'s stderr is the proxy\'s', () => {
    const r = spawnSync(SELFHEAL, ['proxy', '--', NODE, '-e', 'process.stderr.write("from the child\\n")'], { timeout: 10_000, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^from the child$/m);
  });

  test('SIGTERM to the proxy ends the child: no orphan', async () => {
    const dir = newDir();
    const raw = new Raw(proxied(...fsServer(dir)), { fifo: true });
    try {
      await raw.initialize();
      const child = await childOf(raw.proc.pid, FS_SERVER);
      raw.proc.kill('SIGTERM');
      const status = await withTimeout(raw.status, 5000, 'the proxy to exit on SIGTERM');
      assert.ok(status.signal === 'SIGTERM' || status.code === 143, `the child died of SIGTERM, and so the proxy: ${JSON.stringify(status)}`);
      await gone(child);
    } finally {
      raw.kill();
    }
  });

  test('SIGINT reaches the child: server-everything exits 0 on SIGINT, and so does the proxy', async () => {
    const raw = new Raw(proxied(...everything()), { fifo: true });
    try {
      await raw.initialize();
      const child = await childOf(raw.proc.pid, EVERYTHING);
      raw.proc.kill('SIGINT');
      const status = await withTimeout(raw.status, 5000, 'the proxy to exit on SIGINT');
      assert.deepEqual(status, { code: 0, signal: null }, raw.stderr);
      await gone(child);
    } finally {
      raw.kill();
    }
  });
});
