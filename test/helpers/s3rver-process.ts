// An s3rver in a child process on a loopback port, which a test can freeze (SIGSTOP) and thaw (SIGCONT):
// a frozen store accepts connections (the kernel still completes handshakes) and never answers, which
// is exactly how a hung S3 endpoint looks to the service.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CHILD_SCRIPT = fileURLToPath(new URL("./s3rver-child.mjs", import.meta.url));

export interface S3rverProcess {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  freeze(): void;
  thaw(): void;
  /** Thaws (a stopped process cannot act on SIGTERM), kills and removes its directory; safe to repeat. */
  stop(): Promise<void>;
}

export async function startS3rverProcess(bucket = "media"): Promise<S3rverProcess> {
  const directory = await mkdtemp(path.join(tmpdir(), "s3rver-child-"));
  const child = spawn(process.execPath, [CHILD_SCRIPT, directory, bucket], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let frozen = false;
  // Should the test process end without afterAll (a crash, a killed worker), a frozen child must not
  // linger: kill is synchronous, so it works in an exit handler.
  const killOnExit = () => {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  const stop = async () => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const port = await listeningPort(child);
    return {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      freeze() {
        child.kill("SIGSTOP");
        frozen = true;
      },
      thaw() {
        if (frozen) child.kill("SIGCONT");
        frozen = false;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
    child.once("error", reject);
  });
}
