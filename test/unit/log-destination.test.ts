// The log's destination writes the lines of one turn of the event loop together, at the end of the turn,
// in order; a process that exits still writes every line (src/logger.ts).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { TurnBatchedDestination } from "../../src/logger.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recorded() {
  const writes: string[] = [];
  return { writes, destination: new TurnBatchedDestination((text) => writes.push(text)) };
}

describe("the log destination", () => {
  it("writes the lines of one turn in one write, in order, once the turn ends", async () => {
    const { writes, destination } = recorded();
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    destination.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
  });

  it("writes each turn's lines apart, and nothing for a turn without lines", async () => {
    const { writes, destination } = recorded();
    destination.write("a\n");
    await nextTurn();
    await nextTurn();
    destination.write("b\n");
    await nextTurn();
    expect(writes).toEqual(["a\n", "b\n"]);
  });

  it("writes what is pending at once when flushed, and not again at the end of the turn", async () => {
    const { writes, destination } = recorded();
    destination.write("a\n");
    destination.flushSync();
    expect(writes).toEqual(["a\n"]);
    await nextTurn();
    expect(writes).toEqual(["a\n"]);
  });

  it("loses no line when the service's logger writes and the process exits in the same turn", async () => {
    const logger = fileURLToPath(new URL("../../src/logger.ts", import.meta.url));
    const script = `import { createLogger } from ${JSON.stringify(logger)};
      const log = createLogger("info");
      for (let n = 1; n <= 3; n++) log.info("line", { n });
      process.exit(0);`;
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: fileURLToPath(new URL("../..", import.meta.url)) },
    );
    const lines = stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; n: number });
    expect(lines.map((line) => [line.msg, line.n])).toEqual([
      ["line", 1],
      ["line", 2],
      ["line", 3],
    ]);
  });
});
