// selfheal call, the Go client side of the wire contract (gosdk.CallTool
// reading envelopes back as *envelope.CallError), against a server nobody
// here wrote: @modelcontextprotocol/server-filesystem, directly (its own
// plain error text must come back as it is) and through selfheal proxy
// (a validation_error read back field by field).
//
//   SELFHEAL_BIN=/tmp/selfheal node --test e2e/call.test.mjs
//
// SELFHEAL_BIN names the selfheal binary; without it every test is skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELFHEAL = process.env.SELFHEAL_BIN;
const FS_SERVER = join(root, 'e2e', 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const skip = SELFHEAL ? false : 'SELFHEAL_BIN is not set';

function call(flags, server, tool, args) {
  const r = spawnSync(SELFHEAL, ['call', ...flags, '--', ...server, tool, '-'], {
    input: JSON.stringify(args), encoding: 'utf8', timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('a validation_error through selfheal proxy, read back by the Go client', { skip }, () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'selfheal-call-')));
  const server = [SELFHEAL, 'proxy', '--', process.execPath, FS_SERVER, dir];
  const r = call(['--json'], server, 'write_file', { path: join(dir, 'a.txt'), contents: 'hi' });
  assert.equal(r.status, 1, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.isError, true);
  assert.equal(out.validation_error.action, 'write_file');
  const names = out.validation_error.fields.map((f) => f.name);
  // content is required: one line at the field, naming the key sent.
  assert.deepEqual(names, ['content']);
  assert.equal(out.validation_error.fields[0].text,
    "Missing. You sent: the unknown key 'contents'. Expected a string.");
  assert.equal(out.validation_error.recovery, 'Fix the fields above and call the tool again. Do not explain the error.');
  assert.equal(existsSync(join(dir, 'a.txt')), false, 'the bad call reached the server');

  const ok = call([], server, 'write_file', { path: join(dir, 'a.txt'), content: 'hi' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(existsSync(join(dir, 'a.txt')), true);
});

test('another server\'s plain error text comes back as it is', { skip }, () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'selfheal-call-')));
  const r = call([], [process.execPath, FS_SERVER, dir], 'read_text_file', { path: join(dir, 'missing.txt') });
  assert.equal(r.status, 1, r.stderr);
  assert.doesNotMatch(r.stdout, /^(VALIDATION_ERROR|[A-Z_]+ \()/, 'a plain text read as an envelope');
  assert.match(r.stdout, /ENOENT|no such file/i);
});
