// End-to-end: the npm packages, built by npm/build.mjs from GoReleaser's
// output, packed, installed offline into an empty directory, and run as a
// user runs them: `npx selfheal proxy -- node <server>` under the official
// TypeScript client in front of @modelcontextprotocol/server-filesystem,
// `npx selfheal wrap` on a client's file, the one clear line when the
// platform package is missing, and the README's Install and "Wrap your
// client" lines as written.
//
//   SELFHEAL_RELEASE_LINUX_AMD64_ONLY=1 go run github.com/goreleaser/goreleaser/v2@v2.17.0 release --snapshot --clean
//   SELFHEAL_DIST=dist node --test e2e/npm.test.mjs
//
// SELFHEAL_DIST names GoReleaser's dist folder (a snapshot of linux/amd64,
// this machine's platform, is enough); without it every test here is skipped.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { FS_SERVER, NODE, answersFirst, root } from './helpers.mjs';

const DIST = process.env.SELFHEAL_DIST && resolve(root, process.env.SELFHEAL_DIST);
const skip = DIST ? false
  : 'SELFHEAL_DIST is not set: run SELFHEAL_RELEASE_LINUX_AMD64_ONLY=1 goreleaser release --snapshot --clean (see .goreleaser.yaml) and SELFHEAL_DIST=dist node --test e2e/npm.test.mjs';
const opts = { skip, timeout: 120_000 };
const platformPkg = `@selfheal/cli-${process.platform}-${process.arch}`;

let tmp; // everything this file writes
let version; // the snapshot's, from GoReleaser's metadata.json
let mainTgz; // selfheal-VERSION.tgz
let platformTgz; // selfheal-cli-linux-x64-VERSION.tgz

// sh runs a command and returns its status and output; env is added to a
// copy of this process's environment without npm's own variables (npx
// sets them for the commands it runs).
function sh(cmd, args, { cwd, env = {} } = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
  const r = spawnSync(cmd, args, { cwd, env: { ...clean, ...env }, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(r, what) {
  assert.equal(r.status, 0, `${what}: exit ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

// installInto makes an empty directory and installs the tarballs into it,
// offline, as `npm install ./a.tgz ./b.tgz` would.
function installInto(name, tarballs) {
  const dir = join(tmp, name);
  mkdirSync(dir);
  ok(sh('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], { cwd: dir }), `npm install in ${name}`);
  return dir;
}

// A Claude Desktop configuration as its documentation shows one, under a
// HOME of the test's (Linux: ~/.config/Claude/claude_desktop_config.json).
const desktopConfig = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
    }
  }
}
`;
function newHome(name) {
  const home = join(tmp, name);
  const config = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
  writeFileSync(config, desktopConfig);
  return { home, config, env: { HOME: home, XDG_CONFIG_HOME: '' } };
}

before(() => {
  if (skip) return;
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'selfheal-npm-e2e-')));
  ({ version } = JSON.parse(readFileSync(join(DIST, 'metadata.json'), 'utf8')));
  const built = ok(sh(NODE, [join(root, 'npm', 'build.mjs'), '--dist', DIST, '--out', join(tmp, 'packages'), '--pack']), 'npm/build.mjs');
  const tarballs = built.stdout.trim().split('\n');
  mainTgz = tarballs.find((t) => basename(t) === `selfheal-${version}.tgz`);
  platformTgz = tarballs.find((t) => basename(t) === `selfheal-cli-${process.platform}-${process.arch}-${version}.tgz`);
  assert.ok(mainTgz && platformTgz, `npm/build.mjs packed ${tarballs.join(', ')}`);
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the npm packages, installed offline', { skip }, () => {
  let app;
  before(() => {
    if (skip) return;
    app = installInto('app', [mainTgz, platformTgz]);
  });

  test('the main package: a bin shim, optional dependencies per platform, no install script', opts, () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules', 'selfheal', 'package.json'), 'utf8'));
    assert.deepEqual(pkg.bin, { selfheal: 'bin/selfheal.js' });
    assert.equal(pkg.version, version);
    assert.deepEqual(Object.keys(pkg.optionalDependencies).sort(), [
      '@selfheal/cli-darwin-arm64', '@selfheal/cli-darwin-x64', '@selfheal/cli-linux-arm64',
      '@selfheal/cli-linux-x64', '@selfheal/cli-win32-arm64', '@selfheal/cli-win32-x64',
    ]);
    assert.ok(Object.values(pkg.optionalDependencies).every((v) => v === version));
    assert.equal(pkg.scripts, undefined, 'no install script');
    const plat = JSON.parse(readFileSync(join(app, 'node_modules', platformPkg, 'package.json'), 'utf8'));
    assert.deepEqual([plat.os, plat.cpu], [[process.platform], [process.arch]]);
    assert.equal(plat.scripts, undefined, 'no install script');
  });

  test('npx selfheal --version: the version, commit and date GoReleaser stamped', opts, () => {
    const r = ok(sh('npx', ['selfheal', '--version'], { cwd: app }), 'npx selfheal --version');
    const meta = JSON.parse(readFileSync(join(DIST, 'metadata.json'), 'utf8'));
    const goos = { win32: 'windows' }[process.platform] ?? process.platform;
    const goarch = { x64: 'amd64' }[process.arch] ?? process.arch;
    const want = `selfheal v${version} (commit ${meta.commit}, built `;
    assert.ok(r.stdout.startsWith(want), `${r.stdout} does not start with ${want}`);
    assert.match(r.stdout, new RegExp(`, built \\d{4}-\\d\\d-\\d\\dT\\S+Z, go1\\.\\S+ ${goos}/${goarch}\\)\\n$`));
    assert.equal(r.stderr, '');
  });

  test('npx selfheal proxy -- node <server> under the TypeScript client', opts, async () => {
    const dir = join(tmp, 'files');
    mkdirSync(dir);
    const transport = new StdioClientTransport({
      command: 'npx', args: ['selfheal', 'proxy', '--', NODE, FS_SERVER, dir], cwd: app, stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr.setEncoding('utf8');
    transport.stderr.on('data', (s) => { stderr += s; });
    const client = new Client({ name: 'selfheal-npm-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'write_file'), `tools: ${tools.map((t) => t.name)}`);
      // "contents" for "content": the proxy answers before the server writes.
      const path = join(dir, 'a.txt');
      const p = await client.callTool({ name: 'write_file', arguments: { path, contents: 'x' } });
      const text = answersFirst(p, 'write_file', { output: true });
      assert.match(text, /\bcontents\b/);
      assert.equal(existsSync(path), false);
      const good = await client.callTool({ name: 'write_file', arguments: { path, content: 'x' } });
      assert.notEqual(good.isError, true, JSON.stringify(good));
      assert.equal(readFileSync(path, 'utf8'), 'x');
    } finally {
      await client.close();
    }
    assert.doesNotMatch(stderr, /selfheal: /, stderr);
  });

  test('npx selfheal wrap writes the npx form: the shim tells the binary it runs through npx', opts, () => {
    const { config, env } = newHome('home-wrap');
    ok(sh('npx', ['selfheal', 'wrap', '--client', 'claude-desktop', '--yes'], { cwd: app, env }), 'npx selfheal wrap');
    const servers = JSON.parse(readFileSync(config, 'utf8')).mcpServers;
    assert.deepEqual(servers.filesystem, {
      command: 'npx',
      args: ['-y', 'selfheal', 'proxy', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
    });
  });

  test('the binary run directly (on PATH) writes "selfheal"', opts, () => {
    const { config, env } = newHome('home-path');
    const bin = join(app, 'node_modules', platformPkg, 'bin');
    ok(sh('selfheal', ['wrap', '--client', 'claude-desktop', '--yes'], { cwd: app, env: { ...env, PATH: `${bin}:${process.env.PATH}` } }), 'selfheal wrap');
    assert.equal(JSON.parse(readFileSync(config, 'utf8')).mcpServers.filesystem.command, 'selfheal');
  });
});

describe('the platform package missing', { skip }, () => {
  test('one line naming the package to install, exit 1, no stack trace', opts, () => {
    // npm install --omit=optional leaves it out, as a user's may.
    const dir = join(tmp, 'bare');
    mkdirSync(dir);
    ok(sh('npm', ['install', '--offline', '--no-audit', '--no-fund', '--omit=optional', mainTgz], { cwd: dir }), 'npm install');
    assert.equal(existsSync(join(dir, 'node_modules', platformPkg)), false);
    const r = sh('npx', ['selfheal', 'version'], { cwd: dir });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `selfheal: the package ${platformPkg} is not installed (npm skips optional dependencies with --omit=optional or --no-optional): install it with npm install ${platformPkg}@${version}\n`);
  });
});

// readmeLines returns the lines of the ```sh blocks under the README's
// heading `## title`, without their comments.
function readmeLines(title) {
  const md = readFileSync(join(root, 'README.md'), 'utf8');
  const start = md.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `README.md has no "## ${title}" section`);
  const end = md.indexOf('\n## ', start + 1);
  const section = md.slice(start, end < 0 ? undefined : end);
  const lines = [];
  for (const [, block] of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block.split('\n')) {
      const cmd = line.replace(/\s+#.*$/, '').trim();
      if (cmd) lines.push(cmd);
    }
  }
  assert.ok(lines.length > 0, `README.md's "## ${title}" has no sh line`);
  return lines;
}

// The README's Install and "Wrap your client" lines, in a fresh directory
// each: npx and the wrap lines as written; npm install -g with the packed
// package in place of the registry's; the release archive's name checked
// against GoReleaser's and unpacked as the line unpacks it. (The go install
// line is internal/testkit/readme's: it needs a module proxy, not npm.)
describe("the README's install and wrap lines", { skip }, () => {
  test('Install', opts, () => {
    const lines = readmeLines('Install');
    const artifacts = JSON.parse(readFileSync(join(DIST, 'artifacts.json'), 'utf8'));
    let n = 0;
    for (const line of lines) {
      const words = line.split(/\s+/);
      if (line.startsWith('npx selfheal ')) {
        const dir = installInto(`install-${++n}`, [mainTgz, platformTgz]);
        const r = ok(sh(words[0], words.slice(1), { cwd: dir }), line);
        assert.match(r.stdout, new RegExp(`^selfheal v${version.replaceAll('.', '\\.')} `), line);
      } else if (line === 'npm install -g selfheal') {
        const prefix = join(tmp, `global-${++n}`);
        ok(sh('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, mainTgz, platformTgz]), `${line} (the packed package)`);
        const r = ok(sh('selfheal', ['--version'], { env: { PATH: `${join(prefix, 'bin')}:${process.env.PATH}` } }), 'selfheal --version after npm install -g');
        assert.match(r.stdout, /^selfheal v/);
      } else if (line.startsWith('curl ')) {
        const m = /\/releases\/latest\/download\/(\S+\.tar\.gz) \| tar -xz (\S+)$/.exec(line);
        assert.ok(m, `${line}: the release line's form`);
        const archive = artifacts.find((a) => a.type === 'Archive' && a.name === m[1]);
        assert.ok(archive, `GoReleaser made no archive named ${m[1]}: ${artifacts.filter((a) => a.type === 'Archive').map((a) => a.name)}`);
        const dir = join(tmp, `release-${++n}`);
        mkdirSync(dir);
        ok(sh('sh', ['-c', `tar -xz ${m[2]} < "$0"`, resolve(DIST, '..', archive.path)], { cwd: dir }), line);
        assert.match(ok(sh(join(dir, m[2]), ['--version']), 'the released binary').stdout, /^selfheal v/);
      } else if (line.startsWith('go install ')) {
        continue; // internal/testkit/readme's TestReadmeGoInstall
      } else {
        assert.fail(`README.md's Install has a line this test does not run: ${line}`);
      }
    }
  });

  test('Wrap your client', opts, () => {
    const lines = readmeLines('Wrap your client');
    const dir = installInto('wrap-readme', [mainTgz, platformTgz]);
    const { config, env } = newHome('home-readme');
    let wrote = false;
    for (const line of lines) {
      assert.match(line, /^npx selfheal (un)?wrap /, `README.md's "Wrap your client" has a line this test does not run: ${line}`);
      const words = line.split(/\s+/);
      const before = readFileSync(config, 'utf8');
      const r = ok(sh(words[0], words.slice(1), { cwd: dir, env }), line);
      if (words.includes('--yes')) {
        assert.match(r.stdout, /^wrote /m, line);
        wrote = true;
      } else {
        assert.match(r.stdout, /^\+\+\+ /m, `${line}: a diff`);
        assert.equal(readFileSync(config, 'utf8'), before, `${line} wrote without --yes`);
      }
    }
    assert.ok(wrote, 'no line writes the change');
  });
});
