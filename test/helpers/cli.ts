// The CLI as a user runs it (`npx content-gateway …`, i.e. bin/content-gateway.js): a separate process
// printing one JSON object on stdout, with its exit code and stderr.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it was JSON. */
  json: any;
}

export async function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["bin/content-gateway.js", ...args], {
      env,
      cwd: process.cwd(),
    });
    return { code: 0, stdout, stderr, json: parseJson(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, json: null };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
