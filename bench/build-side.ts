// One build's own code, in a process of its own (forked by bench/keys.ts with `--import tsx`): `argv[2]`
// is the build's checkout, whose modules are imported by path, so each build seeds, migrates, issues
// keys and resolves them with its own code and its own generated Prisma client. Commands come as IPC
// messages; each gets one answer, `{ ok: true, value }` or `{ ok: false, error }`.
//
//   seed        the bench dataset through the build's bench/seed.ts (its own workspace and keys)
//   issue-keys  the build's migrations applied, then a public and a private key through its issueKey
//   open        the build's runtime and its instance key resolver (createSharedCallers, as the server)
//   resolve     timed calls of that resolver: remembered keys, then keys looked up (entry forgotten)
//   graphql-list-query  the build's own bench GraphQL list document (its bench/scenarios.ts)
//   close
import path from "node:path";
import { pathToFileURL } from "node:url";

const checkout = process.argv[2];
if (!checkout || !process.send) throw new Error("build-side.ts is forked by bench/keys.ts with a checkout");
const send = process.send.bind(process);

/** A module of the build, by its path in the checkout. */
const ofBuild = (file: string) => import(pathToFileURL(path.join(checkout, file)).href);

interface Runtime {
  db: { prisma: unknown; sql: unknown };
  close(): Promise<void>;
}
interface Resolver {
  resolve(key: string, from?: { address?: string; origin?: string }): Promise<unknown>;
  clear(): void;
}

async function openBuildRuntime(env: Record<string, string>): Promise<Runtime> {
  const [{ loadConfig }, { openRuntime }, { silentLogger }] = await Promise.all([
    ofBuild("src/config.ts"),
    ofBuild("src/bootstrap.ts"),
    ofBuild("src/logger.ts"),
  ]);
  return openRuntime(loadConfig({ ...env, LOG_LEVEL: "silent" }), silentLogger);
}

let opened: { runtime: Runtime; callers: Resolver; close(): Promise<void> } | null = null;

/** The request's own address, as the server sees a loopback client: an address-bound key checks it. */
const FROM = { address: "127.0.0.1" };

const commands: Record<string, (message: Record<string, unknown>) => Promise<unknown>> = {
  async seed({ env, posts }) {
    const { benchSizes, seedBenchDatabase } = await ofBuild("bench/seed.ts");
    const seed = await seedBenchDatabase(env, benchSizes(posts));
    return { fixtures: seed.fixtures, seedMs: seed.seedMs };
  },
  async "issue-keys"({ env, workspaceId }) {
    const runtime = await openBuildRuntime(env as Record<string, string>);
    try {
      const { issueKey } = await ofBuild("src/auth/api-keys.ts");
      const issued = async (kind: string) =>
        (await issueKey(runtime.db.prisma, workspaceId, { kind, name: `bench ${kind}` })).key as string;
      return { public: await issued("public"), private: await issued("private") };
    } finally {
      await runtime.close();
    }
  },
  async open({ env }) {
    const runtime = await openBuildRuntime(env as Record<string, string>);
    const [{ createSharedCallers }, { silentLogger }] = await Promise.all([
      ofBuild("src/bootstrap.ts"),
      ofBuild("src/logger.ts"),
    ]);
    const shared = await createSharedCallers(runtime.db, silentLogger);
    opened = {
      runtime,
      callers: shared.callers,
      close: async () => {
        await shared.close();
        await runtime.close();
      },
    };
    return null;
  },
  async resolve({ key, remembered, lookups }) {
    if (!opened) throw new Error("open first");
    const { callers } = opened;
    const presented = key as string;
    const check = await callers.resolve(presented, FROM);
    // Both builds' answers for a key that lets its caller in: a caller (before) or { state: "valid" }.
    if (!check || (typeof check === "object" && "state" in check && check.state !== "valid"))
      throw new Error(`the key does not resolve: ${JSON.stringify(check)}`);
    // Remembered: what every request pays while the key's entry lives (4 s), its lookup made above.
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < (remembered as number); i++) await callers.resolve(presented, FROM);
    const rememberedNs = Number(process.hrtime.bigint() - started) / (remembered as number);
    const rememberedCpu = process.cpuUsage(cpuBefore);
    // Looked up: the entry forgotten each time, so each call reads the key's row (once per key per 4 s
    // and instance in service).
    const lookupCpuBefore = process.cpuUsage();
    const lookupStarted = process.hrtime.bigint();
    for (let i = 0; i < (lookups as number); i++) {
      callers.clear();
      await callers.resolve(presented, FROM);
    }
    const lookupNs = Number(process.hrtime.bigint() - lookupStarted) / (lookups as number);
    const lookupCpu = process.cpuUsage(lookupCpuBefore);
    const cpuNs = (usage: NodeJS.CpuUsage, calls: number) => ((usage.user + usage.system) * 1000) / calls;
    return {
      rememberedNs,
      rememberedCpuNs: cpuNs(rememberedCpu, remembered as number),
      lookupNs,
      lookupCpuNs: cpuNs(lookupCpu, lookups as number),
    };
  },
  async "graphql-list-query"() {
    const { GRAPHQL_LIST_QUERY } = await ofBuild("bench/scenarios.ts");
    return GRAPHQL_LIST_QUERY as string;
  },
  async close() {
    await opened?.close();
    opened = null;
    return null;
  },
};

process.on("message", (message: Record<string, unknown>) => {
  const command = commands[message.command as string];
  if (!command) {
    send({ ok: false, error: `unknown command ${String(message.command)}` });
    return;
  }
  command(message).then(
    (value) => send({ ok: true, value }),
    (error: unknown) => send({ ok: false, error: (error as Error).stack ?? String(error) }),
  );
});
