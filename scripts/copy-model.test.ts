import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(__dirname, '..');
const script = join(root, 'scripts', 'copy-model.mjs');
const work = mkdtempSync(join(tmpdir(), 'copy-model-'));
const SHA = 'a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28';

const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function fakePackage(name: string, version: string, model: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ version }));
  writeFileSync(join(dir, 'dist', 'silero_vad_legacy.onnx'), model);
  return dir;
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('copy-model.mjs', () => {
  it('copies the pinned model with the recorded sha256, and is idempotent', () => {
    const out = join(work, 'out');
    const first = run('--out', out);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('sha256 ok');
    const target = join(out, 'silero_vad_legacy.onnx');
    expect(sha256(target)).toBe(SHA);
    const mtime = statSync(target).mtimeMs;
    const second = run('--out', out);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('up to date');
    expect(statSync(target).mtimeMs).toBe(mtime);
  });

  it('replaces a damaged copy', () => {
    const out = join(work, 'damaged');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'silero_vad_legacy.onnx'), 'truncated');
    expect(run('--out', out).status).toBe(0);
    expect(sha256(join(out, 'silero_vad_legacy.onnx'))).toBe(SHA);
  });

  it('fails loudly when the package model does not match the recorded sha256', () => {
    const result = run('--out', join(work, 'never'), '--package', fakePackage('tampered', '0.0.31', 'not a model'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`expected ${SHA}`);
  });

  it('fails when the package is not the pinned version', () => {
    const result = run('--out', join(work, 'never'), '--package', fakePackage('newer', '0.0.32', 'x'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('expected the pinned 0.0.31');
  });

  it('rejects unknown arguments', () => {
    expect(run('--frobnicate').status).toBe(1);
  });
});
