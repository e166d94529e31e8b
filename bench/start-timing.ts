// One measured start: spawn a start command on the embedded database, time from spawn to the server's
// `listening` log line and to its first answer (GET /ready, which reads the database), then SIGTERM its whole process group (npm, the shell it runs, node) and wait until all of it
// has exited, so the next start finds the data folder free.
import { spawn } from "node:child_process";
import { PROJECT_ROOT } from "./processes.ts";

export interface StartCommand {
  label: string;
  command: string;
  args: string[];
}

/** Variables a start must not inherit: they would point it at another database, port or format. */
const CONTROLLED = ["DATABASE_URL", "DATABASE_SCHEMA", "REDIS_URL", "DATA_DIR", "PORT", "HOST", "LOG_FORMAT"];

export interface StartTimes {
  /** Milliseconds from spawn to the `listening` log line. */
  listening: number;
  /** Milliseconds from spawn to the first answer, a 200 from GET /ready. */
  firstAnswer: number;
}

/** A start's times; rejects with the output when the start fails or times out. */
export async function timeStart(
  start: StartCommand,
  dataDir: string,
  timeoutMs = 60_000,
): Promise<StartTimes> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTROLLED) delete env[name];
  // Port 0: the system picks a free one; only the log line is waited for.
  Object.assign(env, { DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_FORMAT: "json" });

  const spawnedAt = performance.now();
  // A group of its own, so that SIGTERM reaches node under npm and its shell.
  const child = spawn(start.command, start.args, {
    cwd: PROJECT_ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let output = "";
  try {
    const { listening, url } = await new Promise<{ listening: number; url: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening" within ${timeoutMs} ms`)), timeoutMs);
      const onData = (chunk: Buffer) => {
        output += chunk;
        const line = output.split("\n").find((text) => text.includes('"msg":"listening"'));
        if (line) {
          clearTimeout(timer);
          resolve({ listening: performance.now() - spawnedAt, url: JSON.parse(line).url });
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before listening`));
      });
    });
    const ready = await fetch(`${url}/ready`);
    await ready.arrayBuffer();
    if (ready.status !== 200) throw new Error(`GET /ready answered ${ready.status}`);
    return { listening, firstAnswer: performance.now() - spawnedAt };
  } catch (error) {
    throw new Error(`${start.label}: ${(error as Error).message}\n${output}`);
  } finally {
    await stopGroup(child.pid);
    await exited;
  }
}

/** SIGTERM to the group, then waits until none of it is left (the server has released the data folder). */
async function stopGroup(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      process.kill(-pid, name);
      return true;
    } catch {
      return false; // ESRCH: nobody left in the group.
    }
  };
  signal("SIGTERM");
  while (signal(0)) await new Promise((resolve) => setTimeout(resolve, 20));
}
