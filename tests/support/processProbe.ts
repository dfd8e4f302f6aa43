/**
 * What a running stand-in costs the machine, read from /proc: its resident
 * memory and its helper processes (espeak-ng, ffmpeg). Used by the abuse suite
 * and bench/standin-load.mjs.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** VmRSS of `pid` in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${pid}`);
  return kb / 1024;
}

/** Live children of `parent` whose command name is `name` (zombies, already exited, do not count). */
export function childPids(parent: number, name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it exited meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (Number(ppid) === parent && comm === name && state !== 'Z') pids.push(Number(entry));
  }
  return pids;
}

export interface Peak {
  /** Highest value seen so far. */
  readonly max: number;
  stop(): number;
}

/** Samples `read()` every `everyMs` and keeps the highest value, so a short spike is not missed. */
export function samplePeak(read: () => number, everyMs = 25): Peak {
  let max = read();
  const timer = setInterval(() => {
    try {
      max = Math.max(max, read());
    } catch {
      // the process went away; its last reading stands
    }
  }, everyMs);
  return {
    get max() {
      return max;
    },
    stop() {
      clearInterval(timer);
      return max;
    },
  };
}

/** The socket inodes `pid` holds open (its /proc/<pid>/fd links of the form socket:[N]). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match?.[1]) inodes.add(match[1]);
  }
  return inodes;
}

/**
 * The UDP sockets `pid` holds open: each werift peer connection binds its own, each room two
 * more for its encoders' RTP. Read from /proc/<pid>/net/udp{,6} (the inode is the 10th column)
 * matched against the process's own socket descriptors.
 */
export function udpSocketCount(pid: number): number {
  const mine = socketInodes(pid);
  return socketRows(pid, 'udp').filter((columns) => mine.has(columns[9] ?? '')).length;
}

/** The rows of /proc/<pid>/net/<table> and <table>6, split into columns (a table that cannot be read has none). */
function socketRows(pid: number, table: 'udp' | 'tcp'): string[][] {
  return [table, `${table}6`].flatMap((name) => {
    try {
      return readFileSync(`/proc/${pid}/net/${name}`, 'utf8').split('\n').slice(1).map((line) => line.trim().split(/\s+/));
    } catch {
      return [];
    }
  });
}

/**
 * The TCP connections `pid` holds open on its own `port` (listening sockets aside): what its HTTP
 * server still counts as connected. From /proc/<pid>/net/tcp{,6}: the local address is the 2nd
 * column (port in hex after the colon), the state the 4th (0A is LISTEN), the inode the 10th.
 */
export function tcpConnectionCount(pid: number, port: number): number {
  const mine = socketInodes(pid);
  return socketRows(pid, 'tcp').filter((columns) => {
    const local = columns[1]?.split(':')[1];
    return local !== undefined && parseInt(local, 16) === port && columns[3] !== '0A' && mine.has(columns[9] ?? '');
  }).length;
}
