import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, vi } from 'vitest';

afterEach(() => {
  cleanup();
});

// The client tests share a worker's modules and globals across files (isolate: false in
// vite.config.ts): whatever a file changed of them is put back when it ends, so no file
// depends on which ran before it.
afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});
