/**
 * `npm run replay -- file.json`: prints a session log's timeline (times, state
 * changes, errors, stats levels) for a terminal or a ticket.
 *
 * The timeline is computed by the app's own replay engine with the app's real
 * reducers (src/features/replay/cli.ts). That code is browser code built by
 * Vite: it reads import.meta.env and Vite's build-time constants. So it is
 * loaded through Vite's SSR module loader with the project's own config,
 * rather than imported directly; no server is started and nothing is watched.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { visible } from '../src/features/replay/visible.ts';

interface CliModule {
  replayTimeline(text: string): { lines: string[]; exitCode: number };
}
interface LoggerModule {
  setConsoleLevel(level: 'warn'): void;
}

const USAGE = 'usage: npm run replay -- <session-log.json>';

/**
 * Every line this command prints goes through here: a log (or a file name) whose strings carry
 * terminal control sequences or bidi overrides is shown, not obeyed (src/features/replay/visible.ts).
 */
function print(stream: NodeJS.WriteStream, lines: readonly string[]): void {
  stream.write(`${lines.map(visible).join('\n')}\n`);
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function loadCli<T>(run: (load: (id: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  // Loaded only when there is a file to replay: usage errors answer at once.
  const { createServer } = await import('vite');
  const vite = await createServer({
    root: ROOT,
    configFile: resolve(ROOT, 'vite.config.ts'),
    // Any product environment works: replay makes no request. ('local' is not a valid Vite mode name.)
    mode: 'product',
    logLevel: 'error',
    clearScreen: false,
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  try {
    return await run((id) => vite.ssrLoadModule(id));
  } finally {
    await vite.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const path = argv.find((a) => !a.startsWith('-'));
  if (argv.includes('--help') || argv.includes('-h')) {
    print(process.stdout, [USAGE]);
    return 0;
  }
  if (!path) {
    print(process.stderr, [USAGE]);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(resolve(process.cwd(), path), 'utf8');
  } catch (error) {
    print(process.stderr, [`cannot read ${path}: ${(error as Error).message}`]);
    return 2;
  }
  const result = await loadCli(async (load) => {
    // The app's logger writes info to stdout in development builds; keep stdout for the timeline.
    ((await load('/src/services/logger.ts')) as LoggerModule).setConsoleLevel('warn');
    const cli = (await load('/src/features/replay/cli.ts')) as CliModule;
    return cli.replayTimeline(text);
  });
  print(result.exitCode === 0 ? process.stdout : process.stderr, result.lines);
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    print(process.stderr, `replay failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`.split('\n'));
    process.exitCode = 1;
  },
);
