/**
 * The CPU time of every process of one browser, from /proc: the browser process Playwright
 * started and all its descendants (zygotes, renderers, the GPU process, the network, audio
 * and storage services…), by process and by thread. A helper of bench/call-cost.mjs.
 *
 * A window's CPU time is, for every process and thread seen during it, its last reading
 * minus its reading when the window began (0 for one that started during the window).
 * The tree is read every SAMPLE_MS, so a process or thread that ends during the window
 * loses at most its last interval.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const SAMPLE_MS = 1000;
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // it exited meanwhile
  }
};

/** [ppid, utime + stime in ticks] of /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat. */
function parseStat(text) {
  // pid (comm) state ppid … utime stime: comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** Every live pid with its parent. */
function processTable() {
  const table = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (stat) table.set(Number(entry), parseStat(stat).ppid);
  }
  return table;
}

/** `root` and every process below it. */
function descendants(root) {
  const table = processTable();
  const children = new Map();
  for (const [pid, ppid] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const found = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift();
    if (!table.has(pid)) continue;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * What a Chromium process is, from its command line: browser, renderer, gpu-process, a
 * utility's service (utility:AudioService…), zygote. Chromium rewrites its process title,
 * so /proc/<pid>/cmdline is one string of space-separated arguments.
 */
function processKind(pid) {
  const cmdline = (read(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' ');
  const type = /--type=(\S+)/.exec(cmdline)?.[1];
  if (!type) return 'browser';
  if (type === 'utility') return `utility:${(/--utility-sub-type=(\S+)/.exec(cmdline)?.[1] ?? 'other').split('.').pop()}`;
  return type;
}

/** The browser Playwright just launched: a child of this process whose command line has Playwright's pipe. */
export function browserPid(exclude = new Set()) {
  for (const [pid, ppid] of processTable()) {
    if (ppid !== process.pid || exclude.has(pid)) continue;
    if ((read(`/proc/${pid}/cmdline`) ?? '').includes('--remote-debugging-pipe')) return pid;
  }
  return null;
}

/** One reading of the tree: per process its kind, CPU ticks, resident memory and threads. */
function snapshot(root) {
  const processes = new Map();
  for (const pid of descendants(root)) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    const status = read(`/proc/${pid}/status`) ?? '';
    const threads = new Map();
    let tids = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const tstat = read(`/proc/${pid}/task/${tid}/stat`);
      const comm = read(`/proc/${pid}/task/${tid}/comm`);
      if (tstat && comm) threads.set(Number(tid), { name: comm.trim(), ticks: parseStat(tstat).ticks });
    }
    processes.set(pid, {
      kind: processKind(pid),
      ticks: parseStat(stat).ticks,
      rssKb: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      threads,
    });
  }
  return processes;
}

/** A thread's name without its number (ThreadPoolForegroundWorker 3 → ThreadPoolForeg…): threads of one pool add up. */
const threadGroup = (name) => name.replace(/[\d/]+$/, '').trim() || name;

/**
 * Watches `root`'s tree. window() starts a window; its end() returns the CPU seconds spent
 * in it: in all, by process kind, and by thread (kind: thread name), and the resident
 * memory by process kind at its end.
 */
export function watchBrowser(root) {
  return {
    window() {
      const first = snapshot(root);
      const last = new Map(first);
      const lastThreads = new Map();
      for (const [pid, p] of first) for (const [tid, t] of p.threads) lastThreads.set(`${pid}/${tid}`, { ...t, pid, kind: p.kind });
      const firstThreads = new Map(lastThreads);
      const startedAt = Date.now();
      const update = () => {
        for (const [pid, p] of snapshot(root)) {
          last.set(pid, p);
          for (const [tid, t] of p.threads) lastThreads.set(`${pid}/${tid}`, { ...t, pid, kind: p.kind });
        }
      };
      const timer = setInterval(update, SAMPLE_MS);
      return {
        end() {
          clearInterval(timer);
          update();
          const seconds = (Date.now() - startedAt) / 1000;
          const used = new Map([...last].map(([pid, p]) => [pid, (p.ticks - (first.get(pid)?.ticks ?? 0)) / TICKS_PER_S]));
          // The page's renderer is the busiest one; the others (a spare, DevTools' own) are kept apart.
          const pageRenderer = [...last].filter(([, p]) => p.kind === 'renderer').sort((a, b) => used.get(b[0]) - used.get(a[0]))[0]?.[0];
          const kindOf = (pid, kind) => (kind === 'renderer' && pid !== pageRenderer ? 'other renderers' : kind);
          const byKind = {};
          let total = 0;
          for (const [pid, p] of last) {
            total += used.get(pid);
            const kind = kindOf(pid, p.kind);
            byKind[kind] = (byKind[kind] ?? 0) + used.get(pid);
          }
          const byThread = {};
          for (const [key, t] of lastThreads) {
            const time = (t.ticks - (firstThreads.get(key)?.ticks ?? 0)) / TICKS_PER_S;
            if (time <= 0) continue;
            const group = `${kindOf(t.pid, t.kind)}: ${threadGroup(t.name)}`;
            byThread[group] = (byThread[group] ?? 0) + time;
          }
          const rssMb = {};
          for (const [pid, p] of snapshot(root)) {
            const kind = kindOf(pid, p.kind);
            rssMb[kind] = (rssMb[kind] ?? 0) + p.rssKb / 1024;
          }
          return { seconds, cpuS: total, byKind, byThread, rssMb, processes: last.size };
        },
      };
    },
  };
}
