/** Types of serve.mjs, for the TypeScript that imports it (tests/engines). */
export function serveStatic(dir: string, base?: string): Promise<{ url: string; close(): Promise<void>; proxyUpgradesTo(origin: string): void }>;
