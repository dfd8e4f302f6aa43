/**
 * WebKit for the WebKit lane: Debian's WebKitGTK WebDriver (`WebKitWebDriver`) driving
 * its MiniBrowser, under a virtual X server (`xvfb-run`), through selenium-webdriver.
 * Debian builds WebKitGTK without WebRTC (RTCPeerConnection is undefined), so the lane
 * covers what a WebKit without WebRTC can run; see the lanes' table in docs/testing.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { Builder, type WebDriver } from 'selenium-webdriver';

/** MiniBrowser's path (it lives in the multiarch library folder). */
export function miniBrowser(): string {
  const found =
    process.env.MINIBROWSER_PATH ??
    readdirSync('/usr/lib')
      .flatMap((arch) => ['4.1', '4.0'].map((api) => `/usr/lib/${arch}/webkit2gtk-${api}/MiniBrowser`))
      .find((path) => existsSync(path));
  if (!found) throw new Error('MiniBrowser not found: install Debian\'s webkit2gtk-driver (it brings libwebkit2gtk with MiniBrowser)');
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface WebKitDriver {
  url: string;
  stop(): Promise<void>;
}

/** Starts WebKitWebDriver under xvfb-run on a free port and waits until it answers /status. */
export async function startWebKitDriver(timeoutMs = 30_000): Promise<WebKitDriver> {
  for (const bin of ['WebKitWebDriver', 'xvfb-run']) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) throw new Error(`${bin} not found: install Debian's webkit2gtk-driver and xvfb`);
  }
  const port = await freePort();
  // Its own process group, so stop() ends the X server and the browsers with it.
  const child = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x1024x24', 'WebKitWebDriver', `--port=${port}`], {
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      const killer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await exited;
      clearTimeout(killer);
    }
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${child.exitCode})`);
    const ready = await fetch(`${url}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`WebKitWebDriver did not answer within ${timeoutMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A MiniBrowser session with media capture on and mock capture devices. */
export async function webkitSession(driver: WebKitDriver): Promise<WebDriver> {
  const session = await new Builder()
    .usingServer(driver.url)
    .withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': {
        binary: miniBrowser(),
        args: ['--automation', '--enable-media-stream=true', '--enable-mock-capture-devices=true'],
      },
    })
    .build();
  await session.manage().window().setRect({ width: 390, height: 844 });
  await session.manage().setTimeouts({ script: 60_000 });
  return session;
}
