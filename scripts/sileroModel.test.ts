import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedModelPath, MODEL_SHA256, sileroModel } from './sileroModel.ts';

const installed = resolve(__dirname, '..', 'node_modules', '@ricky0123', 'vad-web');
const work = mkdtempSync(join(tmpdir(), 'silero-model-'));

function fakePackage(name: string, version: string, model: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ version }));
  writeFileSync(join(dir, 'dist', 'silero_vad_legacy.onnx'), model);
  return dir;
}

/** The plugin's module for the virtual id, as Vite would load it. */
function load(packageDir?: string): unknown {
  const plugin = sileroModel(packageDir ? { packageDir } : {});
  const resolveId = plugin.resolveId as (id: string) => string | null;
  const loadHook = plugin.load as (id: string) => string | null;
  return loadHook(resolveId('virtual:silero-vad-model')!);
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Silero model plugin', () => {
  it('hands the pinned package\'s model, checked by sha256, to Vite\'s asset pipeline', () => {
    const model = checkedModelPath(installed);
    expect(createHash('sha256').update(readFileSync(model)).digest('hex')).toBe(MODEL_SHA256);
    expect(load()).toBe(`export { default } from ${JSON.stringify(`${model}?url`)};`);
  });

  it('fails the build when the package model does not match the recorded sha256', () => {
    expect(() => load(fakePackage('tampered', '0.0.31', 'not a model'))).toThrow(`expected ${MODEL_SHA256}`);
  });

  it('fails the build when the package is not the pinned version', () => {
    expect(() => load(fakePackage('newer', '0.0.32', 'x'))).toThrow('expected the pinned 0.0.31');
  });

  it('fails the build when the package is not installed', () => {
    expect(() => load(join(work, 'absent'))).toThrow('is not installed (run npm ci)');
  });

  it('leaves every other module alone', () => {
    const plugin = sileroModel();
    expect((plugin.resolveId as (id: string) => string | null)('react')).toBeNull();
    expect((plugin.load as (id: string) => string | null)('/src/main.tsx')).toBeNull();
  });
});
