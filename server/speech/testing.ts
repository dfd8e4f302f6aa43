/** Helpers for the speech tests: fixtures from scripts/make-fixtures.mjs and a bare HTTP server. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSpeechService, type SpeechService, type SpeechServiceOptions } from './index.ts';
import { parseWaveHeader } from './wav.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES_DIR = join(root, 'tests', 'fixtures');

/** The contract questions and the fixture each one is spoken in. */
export const QUESTION_FIXTURES = [
  { file: 'q-nearest-store.wav', text: 'where is the nearest store' },
  { file: 'q-opening-hours.wav', text: 'what are your opening hours' },
  { file: 'q-discount.wav', text: 'tell me about the discount' },
  { file: 'q-new-products.wav', text: 'show me the new products' },
] as const;

/** Makes the fixtures when missing or stale (cheap when they are current). */
export function ensureFixtures(): void {
  execFileSync(process.execPath, [join(root, 'scripts', 'make-fixtures.mjs')], { stdio: 'pipe' });
}

/** The PCM samples of a fixture, without its WAV header. */
export function fixturePcm(file: string): Buffer {
  return parseWaveHeader(readFileSync(join(FIXTURES_DIR, file))).data;
}

export function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z'\s]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface RunningSpeech {
  port: number;
  service: SpeechService;
  close(): Promise<void>;
}

/** Static bodies the test server answers GETs with, by path (a page for a browser to load). */
export type TestPages = Record<string, { type: string; body: string | Buffer }>;

/** The service behind a bare http.Server on an ephemeral port, upgrades routed as the app does. */
export async function startSpeechServer(opts: Partial<SpeechServiceOptions> = {}, pages: TestPages = {}): Promise<RunningSpeech> {
  const service = createSpeechService({ expectedKey: 'demo-speech-key', ...opts });
  const server = http.createServer((req, res) => {
    const page = pages[req.url ?? ''];
    if (page) res.writeHead(200, { 'Content-Type': page.type }).end(page.body);
    else res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket, head) => {
    if (!service.handleUpgrade(req, socket, head)) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    service,
    async close() {
      await service.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** 16 kHz 16-bit PCM of a loud tone: "speech" as far as the energy endpointer is concerned. */
export function tone(ms: number, amplitude = 8000): Buffer {
  const samples = Math.round((ms * 16_000) / 1000);
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 16_000)), i * 2);
  return out;
}

export function silence(ms: number): Buffer {
  return Buffer.alloc(Math.round((ms * 16_000) / 1000) * 2);
}
