// End-to-end: `selfheal proxy -- CMD ARGS…` in front of MCP servers no one
// here wrote (@modelcontextprotocol/server-filesystem and server-everything,
// pinned in package.json) and the project's own example server, driven by a
// raw JSON-RPC client that compares every byte with the server run directly,
// and by the official TypeScript client (@modelcontextprotocol/sdk).
//
// By default the proxy forwards a call its schema finds issues in and, when
// the server rejects it, answers with selfheal's validation_error in place
// of the rejection, the server's own message kept in <server_message>
// (explained); near misses of declared keys are answered before forwarding
// in every mode. With --strict every schema failure is answered before
// forwarding. Tests whose subject is the proxy's answer run in both modes.
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
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateMessageRequestSchema, ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  EVERYTHING, FS_SERVER, MODES, NODE, Raw, SELFHEAL, answersFirst, bytesEqual, checkGolden, everything,
  explains, fieldLines, filesystem, golden, issuesOf, modeName, opts, paged, proxied, root, session,
  skip, tsClient, useScratch, validationError, withTimeout,
} from './helpers.mjs';

const scratch = useScratch('selfheal-proxy-e2e-'); // everything this file writes
let mcpserverBin;

before(() => {
  if (skip) return;
  mcpserverBin = process.env.MCPSERVER_BIN;
  if (!mcpserverBin) {
    mcpserverBin = join(scratch.dir, 'mcpserver');
    const built = spawnSync('go', ['build', '-o', mcpserverBin, './examples/mcpserver'], { cwd: root, stdio: 'inherit' });
    assert.equal(built.status, 0, 'go build ./examples/mcpserver');
  }
});

const newDir = () => scratch.newDir();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// Process helpers: the proxy's child, found through /proc.
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
    const [dInit, dList] = await run(filesystem(dir));
    const [pInit, pList] = await run(proxied(filesystem(dir)));
    bytesEqual(pInit, dInit, 'initialize');
    bytesEqual(pList, dList, 'tools/list');
    const edit = pList.msg.result.tools.find((t) => t.name === 'edit_file');
    assert.ok(edit.inputSchema.properties.dryRun, 'edit_file declares dryRun');
    assert.notEqual(edit.inputSchema.additionalProperties, false, 'edit_file\'s schema is open: the server drops unknown keys');
  });

  test('write_file with "contents": the server\'s terse line directly, a validation_error naming both keys through the proxy', async () => {
    const file = join(dir, 'a.txt');
    const args = { path: file, contents: 'x' };
    const direct = await session(filesystem(dir), async (raw) => {
      await raw.request('tools/list');
      return raw.callResult('write_file', args);
    });
    const through = await session(proxied(filesystem(dir)), async (raw) => {
      await raw.request('tools/list');
      return raw.callResult('write_file', args);
    });
    // What the model reads without the proxy: one line that never names 'contents'.
    const said = direct.msg.result.content[0].text;
    assert.equal(direct.msg.result.isError, true);
    assert.match(said, TERSE);
    assert.ok(said.endsWith('at content'), said);
    assert.ok(!said.includes('contents'), `the server does not name the key the model sent: ${said}`);
    // Through the proxy: a validation_error about 'contents' and 'content',
    // answered before forwarding (a near miss of a declared key).
    const text = answersFirst(through.msg.result, 'write_file', { field: 'content', output: true });
    assert.match(text, /\bcontents\b/, `names the key sent:\n${text}`);
    assert.match(text, /(['"])content\1/, `names the key expected:\n${text}`);
    assert.match(text, /<field name="content">Missing\. You sent: the unknown key 'contents'\./, `one line at the key meant:\n${text}`);
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

    const through = await session(proxied(filesystem(dir)), async (raw) => {
      await raw.request('tools/list');
      return raw.callResult('edit_file', edit(a));
    });
    const text = answersFirst(through.msg.result, 'edit_file', { output: true });
    assert.match(text, /\bdryrun\b/, `names the key sent:\n${text}`);
    assert.match(text, /\bdryRun\b/, `names the key expected:\n${text}`);
    assert.ok(JSON.stringify(issuesOf(through.msg.result, true)).includes('"dryrun"'));
    assert.equal(readFileSync(a, 'utf8'), 'alpha\n', 'through the proxy the file is unchanged');

    // Directly the misspelt dry run is a real edit: what the test would catch.
    const direct = await session(filesystem(dir), async (raw) => {
      await raw.request('tools/list');
      return raw.callResult('edit_file', edit(b));
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
      const wrote = await raw.callResult('write_file', { path: file, content: 'first line\nsecond line é\n' });
      const read = await raw.callResult('read_text_file', { path: file });
      const old = await raw.callResult('read_file', { path: file, head: 1 });
      const preview = await raw.callResult('edit_file', { path: file, edits: [{ oldText: 'first', newText: '1st' }], dryRun: true });
      const unchanged = readFileSync(file, 'utf8');
      return { wrote, read, old, preview, unchanged };
    });
    const d = await run(filesystem(dir));
    const p = await run(proxied(filesystem(dir)));
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
    const d = await run(filesystem(dir));
    const p = await run(proxied(filesystem(dir)));
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
      const wrote = await raw.callResult('write_file', { path: file, content });
      assert.equal(readFileSync(file, 'utf8'), content, 'the file on disk is what was sent');
      const read = await raw.callResult('read_text_file', { path: file });
      return { wrote, read };
    });
    const d = await run(filesystem(dir));
    const p = await run(proxied(filesystem(dir)));
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
    const res = await session(proxied(filesystem(dir), ['--typos=off']), async (raw) => {
      await raw.request('tools/list');
      return raw.callResult('edit_file', { path: file, edits: [{ oldText: 'alpha', newText: 'beta' }], dryrun: true });
    });
    assert.equal(res.msg.result.isError, undefined, res.text);
    assert.equal(readFileSync(file, 'utf8'), 'beta\n', 'with --typos=off the server got the call');
  });

  // Without typos, 'contents' is only an unknown key beside a missing
  // required one: by default the server decides (it rejects the call) and
  // the proxy explains; --strict answers before forwarding.
  for (const flags of MODES) {
    test(`a missing required key: ${modeName(flags)}`, async () => {
      const dir = newDir();
      const args = { path: join(dir, 'a.txt'), contents: 'x' };
      const direct = await session(filesystem(dir), async (raw) => {
        await raw.request('tools/list');
        return raw.callResult('write_file', args);
      });
      const res = await session(proxied(filesystem(dir), ['--typos=off', ...flags]), async (raw) => {
        await raw.request('tools/list');
        return raw.callResult('write_file', args);
      });
      const said = direct.msg.result.content[0].text;
      assert.match(said, TERSE);
      const text = flags.length
        ? answersFirst(res.msg.result, 'write_file', { field: 'content', output: true })
        : explains(res.msg.result, 'write_file', said, { field: 'content', output: true });
      assert.ok(!/did you mean/.test(text), `no did-you-mean with --typos=off:\n${text}`);
      assert.equal(existsSync(args.path), false, 'nothing was written');
    });
  }
});

describe('server-filesystem, the official TypeScript client through the proxy', opts, () => {
  let dir;
  let direct;
  let through;
  before(async () => {
    dir = newDir();
    direct = await tsClient(...filesystem(dir));
    through = await tsClient(...proxied(filesystem(dir)));
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
    const text = answersFirst(p, 'write_file', { output: true });
    assert.match(text, /\bcontents\b/);
    assert.match(text, /(['"])content\1/);
    assert.equal(existsSync(args.path), false);
  });

  test('edit_file with "dryrun" leaves the file unchanged', async () => {
    const file = join(dir, 'ts-edit.txt');
    writeFileSync(file, 'one\ntwo\n');
    const p = await through.client.callTool({
      name: 'edit_file', arguments: { path: file, edits: [{ oldText: 'one', newText: 'uno' }], dryrun: true },
    });
    const text = answersFirst(p, 'edit_file', { output: true });
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
    const [pInit, pList] = await run(proxied(everything()));
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
    const p = await run(proxied(everything()));
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
      // The server registers its tools (one notification each) before it
      // reads the next request: this listing has them all.
      const after = await raw.request('tools/list');
      const bad = await raw.callResult('trigger-sampling-request', { prompt: 42 });
      return { before, changed, after, bad, notes: raw.lines.slice(from).filter((l) => l.msg?.method === 'notifications/tools/list_changed') };
    }, { init: { capabilities: { sampling: {} }, initialized: false } });
    const d = await run(everything());
    const p = await run(proxied(everything()));
    bytesEqual(p.before, d.before, 'tools/list before');
    bytesEqual(p.changed, d.changed, 'notifications/tools/list_changed');
    assert.equal(p.notes.length, d.notes.length, 'as many list_changed notifications');
    bytesEqual(p.after, d.after, 'tools/list after');
    const names = (l) => l.msg.result.tools.map((t) => t.name);
    assert.ok(!names(p.before).includes('trigger-sampling-request'));
    assert.ok(names(p.after).includes('trigger-sampling-request'));
    // Directly: the SDK's terse line. Through the proxy: the call is checked
    // by the schema learned from the new listing (else the server's
    // rejection would pass as it is), forwarded, and its rejection explained.
    const said = d.bad.msg.result.content[0].text;
    assert.match(said, /^MCP error -32602: .*at prompt$/);
    const text = explains(p.bad.msg.result, 'trigger-sampling-request', said);
    assert.ok(fieldLines(text)[0].includes('name="prompt"'), text);
  });

  const SUM_A = 'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a';

  for (const flags of MODES) {
    test(`get-sum with a string, ${modeName(flags)}: a validation_error at a; a valid call is forwarded`, async () => {
      const run = (cmd) => session(cmd, async (raw) => {
        await raw.request('tools/list');
        return { bad: await raw.callResult('get-sum', { a: '1', b: 2 }), ok: await raw.callResult('get-sum', { a: 1, b: 2 }) };
      });
      const d = await run(everything());
      const p = await run(proxied(everything(), flags));
      bytesEqual(p.ok, d.ok, 'a valid get-sum');
      assert.equal(d.bad.msg.result.content[0].text, SUM_A);
      // By default the server rejects the call and the proxy explains it;
      // with --strict the server never sees it.
      const text = flags.length
        ? answersFirst(p.bad.msg.result, 'get-sum')
        : explains(p.bad.msg.result, 'get-sum', SUM_A);
      const fields = fieldLines(text);
      assert.equal(fields.length, 1, text);
      assert.ok(fields[0].includes('name="a"') && fields[0].includes("'1'"), text);
      assert.deepEqual(issuesOf(p.bad.msg.result, false).map((i) => [i.code, i.path]), [['invalid_type', ['a']]]);
    });
  }

  for (const flags of MODES) {
    test(`200 calls in flight, valid and not, ${modeName(flags)}: each answered once, by the server or by the proxy`, async () => {
      await session(proxied(everything(), flags), async (raw) => {
        await raw.request('tools/list');
        const pending = [];
        for (let i = 0; i < 200; i++) {
          const id = `c${i}`;
          const args = i % 2 ? { a: i, b: 1 } : { a: String(i), b: 1 };
          raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get-sum', arguments: args } });
          pending.push(raw.response(id).then((l) => [i, l]));
        }
        for (const [i, l] of await Promise.all(pending)) {
          if (i % 2) {
            assert.equal(l.msg.result.content[0].text, `The sum of ${i} and 1 is ${i + 1}.`);
            continue;
          }
          // Each explanation is the one of its own call: the server's
          // rejection under the same id.
          const text = flags.length ? answersFirst(l.msg.result, 'get-sum') : explains(l.msg.result, 'get-sum', SUM_A);
          assert.ok(fieldLines(text)[0].includes(`'${i}'`), l.text);
        }
      });
    });

    test(`a server-to-client request (sampling) and its answer pass, ids shared by both directions, ${modeName(flags)}`, async () => {
      // The client's tools/call has id 0, the same id as the server's first
      // request to the client; a bad call (id 1) is answered while the
      // sampling request waits for the client: by the proxy with --strict,
      // by the server (explained by the proxy) by default.
      const run = (cmd) => session(cmd, async (raw) => {
        // notifications/initialized came first: the server has registered
        // trigger-sampling-request when it answers this listing.
        await raw.request('tools/list', undefined, 'list');
        const from = raw.lines.length;
        raw.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } } });
        const asked = await raw.waitFor((l) => l.msg?.method === 'sampling/createMessage', 'sampling/createMessage', 10_000, from);
        const bad = await raw.callResult('get-sum', { a: 1 }, 1);
        raw.send({ jsonrpc: '2.0', id: asked.msg.id, result: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'e2e' } });
        const done = await raw.response(0);
        return { asked, bad, done };
      }, { init: { capabilities: { sampling: {} } } });
      const d = await run(everything());
      const p = await run(proxied(everything(), flags));
      bytesEqual(p.asked, d.asked, 'sampling/createMessage');
      assert.equal(p.asked.msg.id, 0);
      bytesEqual(p.done, d.done, 'the tool result after sampling');
      assert.match(p.done.msg.result.content[0].text, /"sampled"/);
      assert.equal(p.bad.msg.id, 1);
      const text = flags.length
        ? answersFirst(p.bad.msg.result, 'get-sum')
        : explains(p.bad.msg.result, 'get-sum', d.bad.msg.result.content[0].text);
      assert.ok(fieldLines(text).some((l) => l.includes('name="b"')), text);
    });
  }
});

describe('server-everything, the official TypeScript client through the proxy', opts, () => {
  let ts;
  let changed = 0;
  let listChanged;
  before(async () => {
    listChanged = new Promise((resolve) => {
      ts = tsClient(...proxied(everything()), {
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
    // Forwarded, rejected by the server, explained with the new schema.
    const res = await ts.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 'ten' } });
    const text = explains(res, 'trigger-sampling-request',
      'MCP error -32602: Input validation error: Invalid arguments for tool trigger-sampling-request: Invalid input: expected number, received string at maxTokens');
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

  test('get-sum with a string: the server\'s rejection explained; a valid call: the sum', async () => {
    await ts.client.listTools();
    const bad = await ts.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 'two' } });
    const text = explains(bad, 'get-sum',
      'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at b');
    assert.ok(fieldLines(text)[0].includes('name="b"'), text);
    const ok = await ts.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    assert.equal(ok.content[0].text, 'The sum of 1 and 2 is 3.');
  });
});

// ---------------------------------------------------------------------------
// examples/mcpserver (Go, selfheal inside): whoever answers, the client
// reads the result the Go integration gives. By default a call with issues
// reaches the server, whose own validation_error passes untouched (never
// nested in another); a near miss, and with --strict every bad call, is
// answered by the proxy first, with the same bytes.

const mcpserver = () => [mcpserverBin, []];

describe('examples/mcpserver, raw JSON-RPC, direct vs through the proxy', opts, () => {
  const bad = { name: 'A', emial: 'ada@example.com', age: '36', role: 'Admin' }; // emial: a near miss of email
  const missing = { name: 'Ada', role: 'admin' };

  for (const flags of MODES) {
    test(`${modeName(flags)}: tools/list is byte-identical; a bad users.create gets the Go integration's validation_error`, async () => {
      const run = (cmd) => session(cmd, async (raw) => {
        const list = await raw.request('tools/list');
        return { list, bad: await raw.callResult('users.create', bad), missing: await raw.callResult('users.create', missing) };
      });
      const d = await run(mcpserver());
      const p = await run(proxied(mcpserver(), flags));
      bytesEqual(p.list, d.list, 'tools/list');
      const text = validationError(p.bad.msg.result, 'users.create');
      assert.ok(fieldLines(text).some((l) => /'emial'/.test(l)), text);
      assert.ok(fieldLines(text).some((l) => l.includes('name="email"') && l.includes('Missing. You sent: the unknown key')), text);
      const missingText = validationError(p.missing.msg.result, 'users.create');
      assert.match(fieldLines(missingText)[0], /name="email"/, missingText);
      assert.ok(!missingText.includes('<server_message>'), `one validation_error, not one nested in another:\n${missingText}`);
      // The same answer the Go integration gives.
      assert.deepEqual(p.bad.msg.result, d.bad.msg.result);
      assert.deepEqual(p.missing.msg.result, d.missing.msg.result);
      // By default the server's own answer, byte for byte.
      if (!flags.length) bytesEqual(p.missing, d.missing, 'users.create without email');
    });

    test(`${modeName(flags)}, --log: the calls the proxy answered itself, and no value sent`, async () => {
      const log = join(newDir(), 'proxy.log');
      await session(proxied(mcpserver(), ['--log', log, ...flags]), async (raw) => {
        await raw.request('tools/list');
        await raw.callResult('users.create', bad); // a near miss: answered by the proxy in every mode
        await raw.callResult('users.create', missing); // by default the server's own answer, not logged
        await raw.callResult('billing.get_invoice', { id: 'inv_2026_0002' }); // valid: forwarded, not logged
      });
      // The answers; their settlements (outcome) and the calls' tallies are lines too.
      const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.answer);
      assert.equal(entries.length, flags.length ? 2 : 1, JSON.stringify(entries));
      assert.ok(entries.every((e) => e.tool === 'users.create' && e.answer === 'validation_error'), JSON.stringify(entries));
      assert.ok(entries[0].codes.includes('unrecognized_keys'), JSON.stringify(entries[0]));
      if (flags.length) assert.deepEqual(entries[1].paths, ['email'], JSON.stringify(entries[1]));
      const json = JSON.stringify(entries);
      assert.ok(!json.includes('ada@example.com') && !json.includes('Admin') && !json.includes('"36"') && !json.includes('Ada'), `no values sent: ${json}`);
    });
  }

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
    const p = await run(proxied(mcpserver()));
    assert.deepEqual(d.status, { code: 1, signal: null });
    assert.deepEqual(p.status, d.status, 'the child\'s exit status is the proxy\'s');
    assert.deepEqual(p.lines, d.lines);
  });
});

const mcpserverCases = [
  ['invalid_type', 'users.create', { name: 42, email: 'ada@example.com', role: 'admin', age: '36', tags: 'vip' }],
  ['many_issues', 'users.create', { name: 'A', emial: 'ada@example.com', age: '36', role: 'Admin' }],
  ['invalid_union', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', payment: { type: 'card', last4: '12' } }],
  ['not_multiple_of', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', amount_min: 10.005 }],
  ['arguments_array', 'users.create', ['Ada', 'ada@example.com']],
  ['ok_get_invoice', 'billing.get_invoice', { id: 'inv_2026_0002' }],
  ['not_found', 'billing.get_invoice', { id: 'inv_2026_9999' }],
  ['warning_deprecated', 'billing.list_invoices', { customer_id: 'cus_Ab12Cd34', status: 'open', page_size: 2 }],
];

for (const flags of MODES) {
  describe(`examples/mcpserver, the official TypeScript client through the proxy, ${modeName(flags)}`, opts, () => {
    let ts;
    let log;
    before(async () => {
      log = join(newDir(), 'proxy.log');
      ts = await tsClient(...proxied(mcpserver(), ['--log', log, ...flags]));
      await ts.client.listTools(); // what every client does first, and how the proxy learns the schemas
    });
    after(async () => { await ts?.client.close(); });

    for (const [name, tool, args] of mcpserverCases) {
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
  <field name="(root)">You sent: nothing. Expected an object.</field>
  <field name="email">You sent: nothing. Expected a string.</field>
  <field name="name">You sent: nothing. Expected a string.</field>
  <field name="role">You sent: nothing. Expected a value.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`);
    });

    // The Go server gives the same answers: the log shows who answered.
    // With --strict the proxy answered every invalid call (the five golden
    // validation_errors, locale_ja and the absent arguments); by default
    // only the near miss (many_issues: 'emial' for 'email'), the server
    // answering the others with its own validation_error, passed untouched.
    test(flags.length ? 'the proxy answered the invalid calls and forwarded the others (--log)'
      : 'the proxy answered the near miss only; the server answered the other invalid calls (--log)', () => {
      // The answers; their settlements (outcome) and the calls' tallies are lines too.
      const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.answer);
      const invalid = mcpserverCases.filter(([name]) => golden(name).texts[0].startsWith('<validation_error')).map(([, tool]) => tool);
      assert.equal(invalid.length, 5);
      const want = flags.length ? [...invalid, 'users.create', 'users.create'] : ['users.create'];
      assert.deepEqual(entries.map((e) => e.tool), want, JSON.stringify(entries));
      assert.ok(entries.every((e) => e.answer === 'validation_error'), JSON.stringify(entries));
      if (!flags.length) assert.ok(entries[0].codes.includes('unrecognized_keys'), JSON.stringify(entries[0]));
    });
  });
}

// ---------------------------------------------------------------------------
// A scripted server (fixtures/paged-server.mjs): tools/list in two pages, a
// tool whose schema changes, announced by notifications/tools/list_changed,
// and bad calls rejected as real servers reject them (first: a JSON-RPC
// error; second: an isError result). By default the proxy can explain a
// rejection only with a schema it has learned, so an explained rejection
// shows that the proxy knows the tool's schema, as an answer before
// forwarding does with --strict.

// rejected checks the answer to a bad call of tool: with --strict the
// proxy's, naming field; by default the server's rejection (what it said
// starts with said) explained, naming field. Returns the text.
function rejected(flags, line, tool, field, said) {
  assert.ok(line.msg.result, `a result, not an error: ${line.text.slice(0, 500)}`);
  if (flags.length) return answersFirst(line.msg.result, tool, { field });
  return explains(line.msg.result, tool, said, { field });
}

describe('a scripted server: every page of tools/list, re-learning after list_changed, ids', opts, () => {
  for (const flags of MODES) {
    test(`${modeName(flags)}: a tool listed on the second page is checked`, async () => {
      await session(proxied(paged(), flags), async (raw) => {
        const one = await raw.request('tools/list');
        assert.equal(one.msg.result.nextCursor, 'page-2');
        await raw.request('tools/list', { cursor: 'page-2' });
        rejected(flags, await raw.call('first', { n: 'one' }), 'first', 'n',
          'MCP error -32602: Invalid arguments for tool first: n: expected number, received string (got {"n":"one"})');
        rejected(flags, await raw.call('second', { a: 'one' }), 'second', 'a',
          'Invalid arguments for tool second: a: expected integer, received string (got {"a":"one"})');
        assert.equal((await raw.callResult('second', { a: 1 })).msg.result.content[0].text, 'server got second {"a":1}');
        assert.equal((await raw.callResult('first', { n: 1.5 })).msg.result.content[0].text, 'server got first {"n":1.5}');
      });
    });

    test(`${modeName(flags)}: after notifications/tools/list_changed and a new tools/list, the new schema is the one checked`, async () => {
      await session(proxied(paged(), flags), async (raw) => {
        await raw.request('tools/list');
        await raw.request('tools/list', { cursor: 'page-2' });
        const from = raw.lines.length;
        await raw.request('test/change');
        await raw.waitFor((l) => l.msg?.method === 'notifications/tools/list_changed', 'notifications/tools/list_changed', 5000, from);
        await raw.request('tools/list');
        const page2 = await raw.request('tools/list', { cursor: 'page-2' });
        assert.deepEqual(page2.msg.result.tools[0].inputSchema.required, ['b']);
        // Valid before the change, not after: by the new schema b is missing.
        const text = rejected(flags, await raw.call('second', { a: 1 }), 'second', 'b',
          'Invalid arguments for tool second: b: expected string, received undefined; a: unrecognized key (got {"a":1})');
        assert.ok(!fieldLines(text).some((l) => l.includes('Expected an integer')), `judged by the old schema:\n${text}`);
        assert.equal((await raw.callResult('second', { b: 'x' })).msg.result.content[0].text, 'server got second {"b":"x"}');
      });
    });

    test(`${modeName(flags)}: the proxy answers with the request's own id, byte for byte`, async () => {
      await session(proxied(paged(), flags), async (raw) => {
        await raw.request('tools/list');
        await raw.request('tools/list', { cursor: 'page-2' });
        const said = 'MCP error -32602: Invalid arguments for tool first: n: expected number, received undefined (got {})';
        const ids = ['x-1', 0, -7, 'ünïcödé', '9007199254740993'];
        for (const id of ids) {
          const res = await raw.call('first', {}, id);
          assert.equal(res.msg.id, id);
          rejected(flags, res, 'first', 'n', said);
        }
        // A number beyond 2^53 must come back as written, not rounded (the
        // server, which does not round it either, rejects the call under it
        // by default).
        raw.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"first","arguments":{}}}');
        raw.sent.set('9007199254740992', 'tools/call'); // how JSON.parse reads it
        const big = await raw.waitFor((l) => /^\{"jsonrpc":"2\.0","id":9007199254740993,"result":/.test(l.text), 'a result with id 9007199254740993', 5000);
        rejected(flags, big, 'first', 'n', said);
      });
    });
  }
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
    const raw = new Raw(proxied(['cat', []]));
    try {
      raw.proc.stdin.end(input);
      // cat never answers a tools/list: the first call of a tool not
      // learned waits for one (5 s, the proxy's bound), the next do not.
      const status = await withTimeout(raw.exit, 30_000, 'proxy -- cat to exit');
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
    const raw = new Raw(proxied(filesystem(dir)));
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
    const missing = join(scratch.dir, 'no-such-server');
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
    const raw = new Raw(proxied(filesystem(dir)), { fifo: scratch.dir });
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
    const raw = new Raw(proxied(everything()), { fifo: scratch.dir });
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
