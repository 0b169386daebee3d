// Shared by the proxy's end-to-end tests (proxy.test.mjs, trust.test.mjs,
// http.test.mjs, mcpserver.test.mjs, conformance.test.mjs,
// revisions.test.mjs): the binaries and
// servers, a scratch directory, a raw JSON-RPC client that keeps every byte,
// processes serving HTTP (selfheal proxy --listen and the servers behind
// it), the official TypeScript client spawning a command, and the checks of
// selfheal's answers (answered before forwarding, or a server's rejection
// explained).
//
// SELFHEAL_BIN names the proxy binary; without it the proxy's tests are
// skipped (skip, opts).
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const NODE = process.execPath;
export const SELFHEAL = process.env.SELFHEAL_BIN;
export const modules = join(root, 'e2e', 'node_modules', '@modelcontextprotocol');
export const fixtures = join(root, 'e2e', 'fixtures');
export const goldenDir = join(root, 'examples', 'mcpserver', 'testdata');

export const skip = SELFHEAL ? false
  : 'SELFHEAL_BIN is not set: build the proxy (go build -o /tmp/selfheal ./cmd/selfheal) and run SELFHEAL_BIN=/tmp/selfheal node --test e2e/';
export const opts = { skip, timeout: 60_000 };

// Server commands [cmd, args].
export const FS_SERVER = join(modules, 'server-filesystem', 'dist', 'index.js');
export const EVERYTHING = join(modules, 'server-everything', 'dist', 'index.js');
export const filesystem = (dir) => [NODE, [FS_SERVER, dir]];
export const everything = () => [NODE, [EVERYTHING, 'stdio']];
export const memory = () => [NODE, [join(modules, 'server-memory', 'dist', 'index.js')]];
export const thinking = () => [NODE, [join(modules, 'server-sequential-thinking', 'dist', 'index.js')]];
export const fastmcp = () => [NODE, [join(fixtures, 'fastmcp-server.mjs')]];
export const playwright = () => [NODE, [join(fixtures, 'playwright-style-server.mjs')]];
export const changing = () => [NODE, [join(fixtures, 'changing-server.mjs')]];
export const paged = () => [NODE, [join(fixtures, 'paged-server.mjs')]];

// proxied is a server command [cmd, args] through the proxy, with flags.
export const proxied = ([cmd, args], flags = []) => [SELFHEAL, ['proxy', ...flags, '--', cmd, ...args]];
// proxiedNoDashes is the form without '--', for clients (MCP Inspector's
// CLI) that consume it.
export const proxiedNoDashes = ([cmd, args], flags = []) => [SELFHEAL, ['proxy', ...flags, cmd, ...args]];

// The proxy's two modes, for tests that run in both: the default mode
// forwards a call with schema issues and explains the server's rejection;
// --strict answers every schema failure before forwarding.
export const MODES = [[], ['--strict']];
export const modeName = (flags) => (flags.includes('--strict') ? '--strict' : 'the default mode');

// useScratch registers the hooks that make a temporary directory for
// everything a test file writes (checking SELFHEAL_BIN first) and remove
// it; newDir makes a directory in it.
export function useScratch(prefix) {
  const s = {
    dir: undefined,
    newDir: () => mkdtempSync(join(s.dir, 'd-')),
  };
  before(() => {
    if (skip) return;
    assert.ok(existsSync(SELFHEAL), `SELFHEAL_BIN=${SELFHEAL} does not exist`);
    s.dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  });
  after(() => {
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
  });
  return s;
}

export function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms); }),
  ]);
}

export function isResponse(msg) {
  return msg !== null && typeof msg === 'object' && !Array.isArray(msg) && 'id' in msg && !('method' in msg);
}

// ---------------------------------------------------------------------------
// The raw JSON-RPC client: one process, lines in, lines out, bytes kept.

let fifos = 0;

export class Raw {
  // env is added to this process's environment. fifo (a directory): the
  // process reads a named pipe made there that only this client writes, so
  // that its stdin stays open when it exits (Node closes a child's stdin
  // pipe then, which would end an orphaned grandchild and hide it).
  constructor([command, args], { env = {}, fifo } = {}) {
    this.what = [command, ...args].map((a) => a.replace(root + '/', '')).join(' ');
    const environment = { ...process.env, ...env };
    if (fifo) {
      const path = join(fifo, `stdin-${process.pid}-${++fifos}`);
      assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
      // sh opens the fifo for reading, then becomes the command (same pid).
      this.proc = spawn('sh', ['-c', 'exec "$0" "$@" < "$SELFHEAL_E2E_FIFO"', command, ...args],
        { cwd: root, env: { ...environment, SELFHEAL_E2E_FIFO: path }, stdio: ['ignore', 'pipe', 'pipe'] });
      this.writer = open(path, 'w');
      this.writing = this.writer;
    } else {
      this.proc = spawn(command, args, { cwd: root, env: environment, stdio: ['pipe', 'pipe', 'pipe'] });
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
    if (!this.writer) {
      this.proc.stdin.write(text + '\n');
      return;
    }
    this.writing = this.writing.then(async (fh) => {
      // EPIPE: the process is gone, as on stdin (its errors are ignored).
      try { await fh.write(text + '\n'); } catch (e) { if (e.code !== 'EPIPE') throw e; }
      return fh;
    });
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

  // requestLine writes a request written by hand (text, one line) whose id
  // is id, and resolves with its response line.
  requestLine(text, id, method = 'tools/call') {
    this.sent.set(JSON.stringify(id), method);
    this.write(text);
    return this.response(id);
  }

  // call resolves with the response line to a tools/call, whatever it is.
  call(name, args, id) { return this.request('tools/call', { name, arguments: args }, id); }

  // callResult is call, asserting a result (not a JSON-RPC error).
  async callResult(name, args, id) {
    const line = await this.call(name, args, id);
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

  // answered checks that every response answers a request the client sent,
  // once: the proxy's own requests (a re-listing) never show.
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
    if (this.writer) this.writing.then((fh) => fh.close()).catch(() => {}); // after the writes under way
    this.writer = undefined;
  }
}

// session runs fn against a raw client of cmd (initialized as init says;
// init false: not at all), closes its stdin and expects it to exit 0.
export async function session(cmd, fn, { init, env } = {}) {
  const raw = new Raw(cmd, { env });
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

// script runs a list of calls [key, tool, args] (or [key, _, fn(raw)])
// after tools/list, in order, and returns each response line by key.
export function script(calls) {
  return async (raw) => {
    const out = { list: await raw.request('tools/list') };
    for (const [key, tool, args] of calls) {
      out[key] = typeof args === 'function' ? await args(raw) : await raw.call(tool, args);
    }
    return out;
  };
}

// bytesEqual asserts two raw lines are the same bytes, with a readable diff.
export function bytesEqual(proxiedLine, directLine, what) {
  if (Buffer.compare(proxiedLine.buf, directLine.buf) === 0) return;
  let i = 0;
  while (i < proxiedLine.buf.length && proxiedLine.buf[i] === directLine.buf[i]) i++;
  assert.fail(`${what}: through the proxy the line differs from direct at byte ${i}\n`
    + `  proxied: …${proxiedLine.text.slice(Math.max(0, i - 80), i + 300)}\n`
    + `  direct:  …${directLine.text.slice(Math.max(0, i - 80), i + 300)}`);
}

// sameAccepted asserts the server accepted a call directly (a result, not
// an error) and that the proxy's response is the same bytes.
export function sameAccepted(p, d, what) {
  assert.ok(d.msg.result && !d.msg.result.isError, `${what}: the server accepts it directly: ${d.text.slice(0, 500)}`);
  bytesEqual(p, d, what);
}

// ---------------------------------------------------------------------------
// Processes serving HTTP: selfheal proxy --listen and the servers behind it.

// Proc is a process whose stdout and stderr are kept (1 MiB of each) and
// watched for a line.
export class Proc {
  constructor(command, args, env, { cwd = root } = {}) {
    this.what = [command, ...args].map((a) => a.replace(root + '/', '')).join(' ');
    this.proc = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.stdout = '';
    this.stderr = '';
    this.waiters = new Set();
    for (const name of ['stdout', 'stderr']) {
      this.proc[name].setEncoding('utf8');
      this.proc[name].on('data', (s) => {
        if (this[name].length < 1 << 20) this[name] += s;
        for (const w of this.waiters) w();
      });
    }
    this.exited = false;
    this.exit = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exited = true;
        for (const w of this.waiters) w();
        resolve({ code, signal });
      });
    });
  }

  // line resolves with the first match of re in stderr (or in stdout, when
  // stream is 'stdout').
  line(re, ms = 20_000, stream = 'stderr') {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = re.exec(this[stream]);
        if (m) { done(); resolve(m); return; }
        if (this.exited) { done(); reject(new Error(`${this.what}: exited before saying ${re}\n${this[stream].slice(-2000)}`)); }
      };
      const timer = setTimeout(() => { done(); reject(new Error(`${this.what}: did not say ${re} in ${ms} ms\n${this[stream].slice(-2000)}`)); }, ms);
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

// freePort resolves with a loopback port that was free a moment ago.
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startProxy runs selfheal proxy --listen 127.0.0.1:0 (with env added to
// this process's environment, which the servers it runs inherit) and
// resolves with it and the endpoint it prints.
export async function startProxy(args, env = {}) {
  const proxy = new Proc(SELFHEAL, ['proxy', '--listen', '127.0.0.1:0', ...args], env);
  const [, url] = await proxy.line(/selfheal proxy: listening on (http:\/\/\S+)\n/);
  return { proxy, url };
}

// ---------------------------------------------------------------------------
// The official TypeScript client, spawning a command as a user's client
// configuration would.

export async function tsClient(command, args, { capabilities = {}, setup } = {}) {
  const transport = new StdioClientTransport({ command, args, cwd: root, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (s) => { stderr += s; });
  const client = new Client({ name: 'selfheal-proxy-e2e', version: '1.0.0' }, { capabilities });
  setup?.(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

// ---------------------------------------------------------------------------
// selfheal's answers

export const fieldLines = (text) => text.split('\n').filter((l) => l.trimStart().startsWith('<field '));
export const fieldName = (line) => /<field name="([^"]*)"/.exec(line)?.[1];
export const unescapeXML = (s) => s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, e) => ({
  lt: '<', gt: '>', amp: '&', quot: '"', apos: "'",
})[e] ?? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));
// squash compares texts whatever their line breaks: <server_message> shows a
// newline as \n, as in the JSON the server wrote (one line per element).
export const squash = (s) => s.replace(/\\[ntr]/g, ' ').replace(/\s+/g, ' ').trim();

// validationError checks a tool result is selfheal's validation_error for
// tool and returns its text.
export function validationError(result, tool) {
  assert.ok(result, 'a result');
  assert.equal(result.isError, true, `isError: ${JSON.stringify(result).slice(0, 500)}`);
  assert.equal(result.content?.[0]?.type, 'text', JSON.stringify(result).slice(0, 500));
  const text = result.content[0].text;
  assert.ok(text.startsWith(`<validation_error action="${tool}">\n`), `a validation_error for ${tool}, got:\n${text}`);
  assert.ok(text.endsWith('</validation_error>'), `the validation_error is whole:\n${text}`);
  return text;
}

// validationErrorLine is validationError for a response line, under the
// request's id when id is given.
export function validationErrorLine(line, tool, id) {
  assert.equal(line.msg.jsonrpc, '2.0');
  if (id !== undefined) assert.equal(line.msg.id, id);
  assert.ok(line.msg.result, `a result, not ${line.text.slice(0, 500)}`);
  return validationError(line.msg.result, tool);
}

// structured returns the structured issues of a validation_error: in _meta
// when the tool has an output schema (structuredContent would fail it),
// else in structuredContent.
export function structured(result, hasOutputSchema) {
  const sc = hasOutputSchema ? result._meta?.['selfheal/issues'] : result.structuredContent;
  if (hasOutputSchema) assert.equal(result.structuredContent, undefined, 'no structuredContent for a tool with an outputSchema');
  assert.ok(Array.isArray(sc?.issues) && sc.issues.length > 0, `${hasOutputSchema ? '_meta["selfheal/issues"]' : 'structuredContent'}.issues: ${JSON.stringify(result).slice(0, 800)}`);
  return sc;
}

export const issuesOf = (result, hasOutputSchema) => structured(result, hasOutputSchema).issues;

// hasField asserts a <field> line at name (or, with a function, one whose
// name it accepts) and returns it.
export function hasField(text, name) {
  const ok = typeof name === 'function' ? name : (n) => n === name;
  const line = fieldLines(text).find((l) => ok(fieldName(l)));
  assert.ok(line, `a <field> line at ${typeof name === 'function' ? name.toString() : `"${name}"`}:\n${text}`);
  return line;
}

// serverSaid returns what the server said rejecting a call directly (d, a
// response line): a JSON-RPC error's message, or an isError result's text.
export function serverSaid(d, what) {
  if (d.msg.error) return d.msg.error.message;
  assert.equal(d.msg.result?.isError, true, `${what}: the server rejects it directly: ${d.text.slice(0, 500)}`);
  return d.msg.result.content.map((c) => c.text).join('\n');
}

// explains checks a tool result is selfheal's validation_error for tool,
// explaining a rejection by the server: naming field (when given), with
// what the server said (said) kept in <server_message> and in the
// structured issues' serverMessage. Returns the text.
export function explains(result, tool, said, { field, output = false } = {}) {
  const text = validationError(result, tool);
  if (field !== undefined) hasField(text, field);
  const m = /<server_message>([\s\S]*?)<\/server_message>/.exec(text);
  assert.ok(m, `the server's message in <server_message>:\n${text}\nthe server said: ${said}`);
  assert.ok(squash(unescapeXML(m[1])).includes(squash(said)), `<server_message> keeps what the server said:\n  ${said}\n${text}`);
  const sc = structured(result, output);
  assert.equal(typeof sc.serverMessage, 'string', `serverMessage beside the issues: ${JSON.stringify(sc).slice(0, 800)}`);
  assert.ok(squash(sc.serverMessage).includes(squash(said)), `serverMessage keeps what the server said:\n  ${said}\n  ${sc.serverMessage}`);
  return text;
}

// answersFirst checks a tool result is selfheal's validation_error for
// tool, answered before forwarding: naming field (when given), with no
// server message (the server never saw the call). Returns the text.
export function answersFirst(result, tool, { field, output = false } = {}) {
  const text = validationError(result, tool);
  if (field !== undefined) hasField(text, field);
  assert.ok(!text.includes('<server_message>'), `answered before forwarding, no server message:\n${text}`);
  assert.equal(structured(result, output).serverMessage, undefined, 'answered before forwarding, no serverMessage');
  return text;
}

// explained checks the proxy's answer p (a response line) to a call the
// server rejected directly (d): selfheal's validation_error naming field,
// under the request's id, with the server's own message kept. Returns the text.
export function explained(p, d, tool, field, { output = false } = {}) {
  const said = serverSaid(d, tool);
  validationErrorLine(p, tool, d.msg.id);
  return explains(p.msg.result, tool, said, { field, output });
}

// answeredFirst checks the proxy's answer p (a response line) to a call it
// answered before forwarding. Returns the text.
export function answeredFirst(p, tool, { output = false } = {}) {
  validationErrorLine(p, tool);
  return answersFirst(p.msg.result, tool, { output });
}

// ---------------------------------------------------------------------------
// examples/mcpserver's golden files

// golden reads a Go golden file: "isError: …", then "--- text" blocks and
// at most one "--- structuredContent" or "--- _meta.selfheal/issues" JSON.
export function golden(name) {
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
  for (const line of lines.slice(1, -1)) { // the file ends with a newline
    if (line.startsWith('--- ')) { flush(); section = line.slice(4); buf = []; } else buf.push(line);
  }
  flush();
  return want;
}

// checkGolden asserts a tool result is the golden one.
export function checkGolden(res, want) {
  assert.equal(res.isError ?? false, want.isError, 'isError');
  assert.deepEqual(res.content.map((c) => { assert.equal(c.type, 'text'); return c.text; }), want.texts);
  if (want.structured !== undefined) assert.deepEqual(res.structuredContent, want.structured);
  if (want.metaIssues !== undefined) assert.deepEqual(res._meta?.['selfheal/issues'], want.metaIssues);
  if (want.isError) assert.equal(res.structuredContent, undefined, 'an error carries no structuredContent that the output schema would reject');
}
