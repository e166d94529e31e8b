// The in-memory database (tests, dry runs) runs PostgreSQL as WebAssembly on the thread that serves
// requests, and one statement runs there synchronously from start to end (the embedded store on a data
// folder runs it on a thread of its own: embedded-thread-supervisor.ts). A write's statements follow each other through
// promise continuations (microtasks), so the event loop never got a turn from a transaction's BEGIN to
// its COMMIT: every request that arrived meanwhile, even a cached read that needs no database, waited
// for the whole write (issue 38: a draft save blocked the loop for its whole length). Here each
// statement of a transaction first gives the loop one turn (setImmediate: after pending I/O callbacks),
// so reads are served between a write's statements. The write still holds the database until COMMIT;
// a read that needs the database waits for it as before. node-postgres (a server, or the embedded
// store's thread) does not need this: its statements run elsewhere, not on this thread.
import { setImmediate as nextTurn } from "node:timers/promises";
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";

/** `factory`, whose transactions yield to the event loop before each statement. */
export function yieldingTransactions(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return override(factory, {
    connect: async () => {
      const adapter = await factory.connect();
      return override<SqlDriverAdapter>(adapter, {
        startTransaction: async (isolationLevel) =>
          yieldingStatements(await adapter.startTransaction(isolationLevel)),
      });
    },
  });
}

function yieldingStatements(transaction: Transaction): Transaction {
  return override(transaction, {
    queryRaw: async (query: SqlQuery) => {
      await nextTurn();
      return transaction.queryRaw(query);
    },
    executeRaw: async (query: SqlQuery) => {
      await nextTurn();
      return transaction.executeRaw(query);
    },
  });
}

/**
 * `target` with `replaced` methods, everything else (class methods, fields such as `provider`) read from
 * the target itself: the adapters are class instances, which a spread would not copy.
 */
function override<T extends object>(target: T, replaced: Partial<T>): T {
  return new Proxy(target, {
    get(object, key) {
      if (Object.hasOwn(replaced, key)) return replaced[key as keyof T];
      const value = Reflect.get(object, key, object);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
