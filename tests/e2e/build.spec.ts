/**
 * The build the end-to-end tests run (`vite build --mode standin`, the `local` environment)
 * names no address of its own: every URL the app uses (services, signaling, speech, WHEP,
 * the TURN relay) comes from the page's location, so the same build works on a phone that
 * opened the machine's LAN address (`npm start -- --lan`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

test('the local build names no loopback address: nothing in dist/ says 127.0.0.1', () => {
  const all = files(DIST);
  expect(all.map((f) => relative(DIST, f))).toContain('index.html');
  expect(all.some((f) => f.endsWith('.js')), 'the app is built').toBe(true);
  const naming = all.filter((f) => readFileSync(f).includes('127.0.0.1')).map((f) => relative(DIST, f));
  expect(naming).toEqual([]);
});
