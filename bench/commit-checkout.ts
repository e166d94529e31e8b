// Another commit of this project, ready to run beside this one: its tree in a temporary folder (`git
// archive`, so nothing is registered in the repository and a crash leaves only a folder behind), this
// checkout's node_modules linked in (the commits compared must share their dependencies' versions, or
// the comparison measures those too), and its own Prisma client generated from its own schema.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PROJECT_ROOT } from "./processes.ts";

export interface CommitCheckout {
  /** The folder to start its servers from (startServer's `cwd`). */
  dir: string;
  /** The commit's full id. */
  commit: string;
  remove(): void;
}

export function checkOutCommit(revision: string): CommitCheckout {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: PROJECT_ROOT, encoding: "utf8", maxBuffer: 1 << 30 });
  const commit = git("rev-parse", "--verify", `${revision}^{commit}`).trim();
  const dir = mkdtempSync(path.join(os.tmpdir(), `content-bench-${commit.slice(0, 7)}-`));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const archive = spawnSync("git", ["archive", "--format=tar", commit], {
      cwd: PROJECT_ROOT,
      maxBuffer: 1 << 30,
    });
    if (archive.status !== 0) throw new Error(`git archive ${commit}: ${archive.stderr.toString()}`);
    const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
    if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
    const modules = path.join(PROJECT_ROOT, "node_modules");
    if (!existsSync(modules)) throw new Error(`no node_modules in ${PROJECT_ROOT}: run npm install first`);
    symlinkSync(modules, path.join(dir, "node_modules"));
    const generate = spawnSync(process.execPath, ["scripts/prisma-generate.mjs"], {
      cwd: dir,
      encoding: "utf8",
    });
    if (generate.status !== 0)
      throw new Error(`prisma generate in ${dir}: ${generate.stderr}${generate.stdout}`);
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, commit, remove };
}
