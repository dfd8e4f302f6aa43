#!/usr/bin/env node
// Installs what `npm start` / `npm test` need and is missing. Dependency-free on purpose:
// it runs before node_modules exists.
//
//   node scripts/preflight.mjs start   npm deps, the stand-in's Debian packages
//   node scripts/preflight.mjs test    the same, plus chromium and the test audio fixtures
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const purpose = process.argv[2] === 'test' ? 'test' : 'start';

const STANDIN_PACKAGES = [
  { pkg: 'ffmpeg', bin: 'ffmpeg' },
  { pkg: 'espeak-ng', bin: 'espeak-ng' },
  { pkg: 'pocketsphinx', bin: 'pocketsphinx_continuous' },
  { pkg: 'pocketsphinx-en-us', file: '/usr/share/pocketsphinx/model/en-us/en-us/mdef' },
  // The TURN relay the local build's media can go through (server/turn.ts).
  { pkg: 'coturn', bin: 'turnserver' },
];
const TEST_PACKAGES = [
  { pkg: 'chromium', bin: 'chromium' },
  // CJK glyphs for the screenshots the end-to-end tests take in zh/cht/jp/kor.
  { pkg: 'fonts-wqy-zenhei', file: '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc' },
  // An audio output device for the browsers under test (a null sink), and pactl to set it up.
  { pkg: 'pulseaudio', bin: 'pulseaudio' },
  { pkg: 'pulseaudio-utils', bin: 'pactl' },
  // The engine lanes (tests/engines): Firefox over WebDriver BiDi, and WebKitGTK's
  // WebDriver with MiniBrowser under a virtual X server.
  { pkg: 'firefox-esr', bin: 'firefox-esr' },
  { pkg: 'webkit2gtk-driver', bin: 'WebKitWebDriver' },
  { pkg: 'xvfb', bin: 'xvfb-run' },
  // xvfb-run needs it (only recommended by xvfb, which an install without recommends skips).
  { pkg: 'xauth', bin: 'xauth' },
  // Impaired links (tests/support/impairedLink.ts): network namespaces and tc, nftables for loss and blackouts.
  { pkg: 'iproute2', bin: 'tc' },
  { pkg: 'nftables', bin: 'nft' },
  // The hosting test (tests/e2e/hosting.spec.ts): the product build behind nginx with docs/nginx.conf.
  { pkg: 'nginx', file: '/usr/sbin/nginx' },
  { pkg: 'libnginx-mod-http-brotli-static', file: '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so' },
];

function say(message) {
  process.stdout.write(`[preflight] ${message}\n`);
}

function run(cmd, args, options = {}) {
  say(`$ ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${cmd} exited with ${result.status}`);
}

function onPath(bin) {
  return spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
}

/** node_modules is stale when the lockfile changed since the last successful install. */
function ensureNodeModules() {
  const lock = join(root, 'package-lock.json');
  const stamp = join(root, 'node_modules', '.preflight-lock-sha256');
  const want = createHash('sha256').update(readFileSync(lock)).digest('hex');
  const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (have === want) {
    say('npm dependencies are up to date');
    return;
  }
  say(have ? 'package-lock.json changed: reinstalling npm dependencies' : 'installing npm dependencies');
  run('npm', ['ci', '--no-audit', '--no-fund'], {
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  });
  writeFileSync(stamp, want + '\n');
}

function ensureDebianPackages() {
  const wanted = purpose === 'test' ? [...STANDIN_PACKAGES, ...TEST_PACKAGES] : STANDIN_PACKAGES;
  const missing = wanted.filter(({ bin, file }) => (bin ? !onPath(bin) : !existsSync(file))).map(({ pkg }) => pkg);
  if (missing.length === 0) {
    say(`Debian packages present: ${wanted.map((w) => w.pkg).join(', ')}`);
    return;
  }
  if (!onPath('apt-get')) {
    say(`apt-get is not available on this machine; install these yourself: ${missing.join(' ')}`);
    return;
  }
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args]) : run('apt-get', args));
  say(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  apt(['update', '-qq']);
  const install = ['install', '-y', '-qq', ...missing];
  if (sudo.length) run('sudo', ['apt-get', ...install], { env });
  else run('apt-get', install, { env });
}

function runScriptIfPresent(script) {
  if (existsSync(join(root, script))) run(process.execPath, [script]);
}

try {
  ensureNodeModules();
  ensureDebianPackages();
  if (purpose === 'test') runScriptIfPresent('scripts/make-fixtures.mjs');
  say('ready');
} catch (error) {
  say(`failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
