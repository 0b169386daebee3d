#!/usr/bin/env node
// Builds the npm packages from GoReleaser's output: the main package
// `selfheal` (npm/selfheal: the bin shim, with one optional dependency per
// platform at the release's version) and one package per platform binary,
// @selfheal/cli-<os>-<cpu> with npm's os and cpu fields, holding
// bin/selfheal (bin/selfheal.exe on Windows).
//
//   node npm/build.mjs --dist dist --out npm-dist [--all] [--pack] [--publish]
//
// --dist: GoReleaser's dist folder (its metadata.json gives the version,
// its artifacts.json the binaries). Platforms it has no binary for are
// named on stderr and skipped (CI's snapshot of linux/amd64 has one),
// or with --all refused (exit 1): a release publishes them all.
// --pack: `npm pack` every package into --out and print the tarballs' paths.
// --publish: `npm publish --access public` every platform package, then the
// main package (which depends on them), with provenance when run in CI.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const usage = 'usage: node npm/build.mjs --dist DIR --out DIR [--all] [--pack] [--publish]';

function fail(msg) {
  console.error(`npm/build.mjs: ${msg}`);
  process.exit(msg.startsWith('usage') ? 2 : 1);
}

let opts;
try {
  opts = parseArgs({
    options: {
      dist: { type: 'string' }, out: { type: 'string' },
      all: { type: 'boolean' }, pack: { type: 'boolean' }, publish: { type: 'boolean' },
    },
  }).values;
} catch (err) {
  fail(`${err.message}\n${usage}`);
}
if (!opts.dist || !opts.out) fail(usage);

// GoReleaser's names → npm's (process.platform, process.arch).
const npmOS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };
const npmCPU = { amd64: 'x64', arm64: 'arm64' };

const readJSON = (p) => {
  try {
    return JSON.parse(readFileSync(p, 'utf8'));
  } catch (err) {
    return fail(`cannot read ${p}: ${err.message}`);
  }
};
const dist = resolve(opts.dist);
const out = resolve(opts.out);
const { version } = readJSON(join(dist, 'metadata.json'));
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version ?? '')) fail(`${dist}/metadata.json: version ${JSON.stringify(version)} is not a semantic version npm takes`);
const platforms = readJSON(join(here, 'selfheal', 'platforms.json'));
const main = readJSON(join(here, 'selfheal', 'package.json'));

const binaries = new Map(); // "linux-x64" → the binary's path
for (const a of readJSON(join(dist, 'artifacts.json'))) {
  if (a.type !== 'Binary' || !npmOS[a.goos] || !npmCPU[a.goarch]) continue;
  binaries.set(`${npmOS[a.goos]}-${npmCPU[a.goarch]}`, resolve(dist, '..', a.path));
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const dirs = [];
for (const platform of platforms) {
  const bin = binaries.get(platform);
  if (!bin || !existsSync(bin)) {
    if (opts.all) fail(`no binary for ${platform} in ${dist}`);
    console.error(`npm/build.mjs: no binary for ${platform} in ${dist}: its package is not built`);
    continue;
  }
  const [os, cpu] = platform.split('-');
  const name = `@selfheal/cli-${platform}`;
  const dir = join(out, `cli-${platform}`);
  const exe = os === 'win32' ? 'selfheal.exe' : 'selfheal';
  mkdirSync(join(dir, 'bin'), { recursive: true });
  copyFileSync(bin, join(dir, 'bin', exe));
  chmodSync(join(dir, 'bin', exe), 0o755);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name, version,
    description: `The ${os} ${cpu} binary of selfheal (installed by the selfheal package: use that one)`,
    homepage: main.homepage, repository: main.repository,
    os: [os], cpu: [cpu],
    files: [`bin/${exe}`],
    preferUnplugged: true,
  }, null, 2) + '\n');
  writeFileSync(join(dir, 'README.md'), `# ${name}\n\nThe ${os} ${cpu} binary of [selfheal](${main.homepage}). Install \`selfheal\`, which depends on it: \`npx selfheal --help\`.\n`);
  dirs.push(dir);
}

const mainDir = join(out, 'selfheal');
mkdirSync(join(mainDir, 'bin'), { recursive: true });
copyFileSync(join(here, 'selfheal', 'bin', 'selfheal.js'), join(mainDir, 'bin', 'selfheal.js'));
chmodSync(join(mainDir, 'bin', 'selfheal.js'), 0o755);
copyFileSync(join(here, 'selfheal', 'platforms.json'), join(mainDir, 'platforms.json'));
copyFileSync(join(here, 'selfheal', 'README.md'), join(mainDir, 'README.md'));
main.version = version;
main.optionalDependencies = Object.fromEntries(platforms.map((p) => [`@selfheal/cli-${p}`, version]));
writeFileSync(join(mainDir, 'package.json'), JSON.stringify(main, null, 2) + '\n');
dirs.push(mainDir); // last: it depends on the others

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
if (opts.pack) {
  for (const dir of dirs) {
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', out], dir));
    console.log(join(out, packed.filename));
  }
}
if (opts.publish) {
  const provenance = process.env.CI ? ['--provenance'] : [];
  for (const dir of dirs) npm(['publish', '--access', 'public', ...provenance], dir);
}
