#!/usr/bin/env node
// The selfheal command of the npm package: it runs the Go binary of the
// platform package that npm installed beside it (@selfheal/cli-linux-x64,
// -darwin-arm64, -win32-x64...: one optional dependency per platform, each
// with os and cpu fields, so npm installs only the one that fits), the way
// esbuild and Biome ship theirs. Nothing is downloaded, at install or at run
// time, and there is no install script.
//
// SELFHEAL_VIA_NPX=1 tells the binary that npx (npm exec) ran it, from npx's
// cache rather than from PATH, so that `selfheal wrap` writes the npx form
// ("npx -y selfheal proxy ...") into a client's configuration.
'use strict';

const { spawn } = require('node:child_process');
const { version } = require('../package.json');
const platforms = require('../platforms.json');

const platform = `${process.platform}-${process.arch}`;
if (!platforms.includes(platform)) {
  console.error(`selfheal: no binary for ${process.platform}/${process.arch} (there are ${platforms.join(', ')}); with Go: go install github.com/selfheal/selfheal/cmd/selfheal@latest`);
  process.exit(1);
}
const pkg = `@selfheal/cli-${platform}`;
const exe = process.platform === 'win32' ? 'selfheal.exe' : 'selfheal';
let bin;
try {
  bin = require.resolve(`${pkg}/bin/${exe}`);
} catch {
  console.error(`selfheal: the package ${pkg} is not installed (npm skips optional dependencies with --omit=optional or --no-optional): install it with npm install ${pkg}@${version}`);
  process.exit(1);
}

const env = { ...process.env };
if (process.env.npm_command === 'exec') env.SELFHEAL_VIA_NPX = '1';
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', env });
// The binary handles signals itself (selfheal proxy passes them on to its
// server): pass on those sent to this process alone.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => { child.kill(sig); });
}
child.on('error', (err) => {
  console.error(`selfheal: cannot run ${bin}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // End as the binary did, by the same signal, for the caller to see.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
