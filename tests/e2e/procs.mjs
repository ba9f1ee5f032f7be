// Processes as /proc shows them, for the benchmarks: a process tree and
// its memory (PSS: each shared page split among the processes mapping it).
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

function pids() {
  return readdirSync("/proc").filter((p) => /^\d+$/.test(p));
}

function stat(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may hold spaces: fields are counted after its ')'.
  const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return { comm: s.slice(s.indexOf("(") + 1, s.lastIndexOf(")")), ppid: Number(rest[1]) };
}

export function pss(pid) {
  const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
  return m ? Number(m[1]) : 0;
}

/** Where a process's PSS (kB) lies: its own executable's pages (code,
 * constants, relocated tables) and anonymous memory (heaps, stacks, the
 * libraries' written pages), from /proc/PID/smaps. */
export function breakdown(pid) {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  let own = 0;
  let inExe = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) inExe = mapping[1] === exe;
    else if (inExe && line.startsWith("Pss:")) own += Number(line.split(/\s+/)[1]);
  }
  const anon = /^Pss_Anon:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
  return { exe: own, anon: anon ? Number(anon[1]) : 0 };
}

/** Every process under `root` (children, theirs, …), with its command name. */
export function descendants(root) {
  const children = new Map();
  for (const p of pids()) {
    try {
      const { ppid, comm } = stat(p);
      children.set(ppid, [...(children.get(ppid) ?? []), { pid: Number(p), comm }]);
    } catch {
      // exited meanwhile
    }
  }
  const found = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c.pid);
    }
  };
  walk(root);
  return found;
}

/** PSS in kB of the app and of its WebKit helpers (the MCP servers it runs are not counted). */
export function memory(app) {
  let webkit = 0;
  for (const { pid, comm } of descendants(app)) {
    try {
      if (comm.startsWith("WebKit")) webkit += pss(pid);
    } catch {
      // exited meanwhile
    }
  }
  return { app: pss(app), webkit };
}

export const alive = (pid) => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};
