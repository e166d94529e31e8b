// The embedded database speaks PostgreSQL's wire protocol as a server does (src/db/embedded-wire-server.ts):
// a statement that fails answers its error and nothing else, so the connection's next answers are its
// own; the connection never drops for an error; and a new connection starts from a clean session.
// Issue 53: one unique violation in a prepared statement used to shift every later answer by one.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWireProtocol, type WireServer } from "../../src/db/embedded-wire-server.ts";

const socketDirectory = mkdtempSync(path.join(tmpdir(), "content-wire-"));
let db: PGlite;
let server: WireServer;
const fatal: unknown[] = [];

beforeAll(async () => {
  db = new PGlite();
  await db.exec(`
    CREATE TABLE parent (id int PRIMARY KEY);
    CREATE TABLE item (id serial PRIMARY KEY, slug text UNIQUE, size int CHECK (size >= 0),
                       parent int REFERENCES parent (id));
    INSERT INTO parent VALUES (1);`);
  server = await serveWireProtocol(db, path.join(socketDirectory, ".s.PGSQL.5432"), (error) =>
    fatal.push(error),
  );
});

afterAll(async () => {
  await server.close();
  await db.close();
  rmSync(socketDirectory, { recursive: true, force: true });
  expect(fatal).toEqual([]);
});

function client(): pg.Client {
  return new pg.Client({ host: socketDirectory, port: 5432, user: "postgres", database: "postgres" });
}

/** A named (prepared) statement, as Prisma's adapter sends every query (src/db/statement-names.ts). */
function named(connection: pg.Client, name: string, text: string, values: unknown[] = []) {
  return connection.query({ name, text, values }).then(
    (result) => result.rows,
    (error: { code?: string }) => ({ failed: error.code }),
  );
}

describe("a statement that fails", () => {
  it("answers its own error, and every statement after it answers its own rows, on the same connection", async () => {
    const connection = client();
    let dropped = false;
    connection.on("error", () => (dropped = true));
    connection.on("end", () => (dropped = true));
    await connection.connect();
    try {
      const insert = "INSERT INTO item (slug, size, parent) VALUES ($1, $2, $3) RETURNING slug";
      expect(await named(connection, "insert", insert, ["news", 1, 1])).toEqual([{ slug: "news" }]);
      expect(await named(connection, "insert", insert, ["news", 1, 1])).toEqual({ failed: "23505" });
      expect(await named(connection, "one", "SELECT 1 AS one")).toEqual([{ one: 1 }]);
      expect(await named(connection, "insert", insert, ["other", -1, 1])).toEqual({ failed: "23514" });
      expect(await named(connection, "insert", insert, ["other", 1, 99])).toEqual({ failed: "23503" });
      expect(await named(connection, "broken", "SELEC 1")).toEqual({ failed: "42601" });
      expect(await named(connection, "two", "SELECT 2 AS two")).toEqual([{ two: 2 }]);
      expect(await named(connection, "insert", insert, ["other", 2, 1])).toEqual([{ slug: "other" }]);

      // Inside a transaction: the failed statement aborts it, the rollback ends it, and the answers stay in step.
      await connection.query("BEGIN");
      expect(await named(connection, "insert", insert, ["third", 3, 1])).toEqual([{ slug: "third" }]);
      expect(await named(connection, "insert", insert, ["news", 3, 1])).toEqual({ failed: "23505" });
      expect(await named(connection, "one", "SELECT 1 AS one")).toEqual({ failed: "25P02" });
      await connection.query("ROLLBACK");
      expect(await named(connection, "count", "SELECT count(*)::int AS n FROM item")).toEqual([{ n: 2 }]);

      // A simple query of several statements that fails half way.
      await expect(connection.query("SELECT 1; SELECT 1/0; SELECT 3")).rejects.toMatchObject({
        code: "22012",
      });
      expect(await named(connection, "two", "SELECT 2 AS two")).toEqual([{ two: 2 }]);
      expect(dropped).toBe(false);
    } finally {
      await connection.end();
    }
  });

  it("keeps many callers' answers apart when their statements fail and succeed in turn", async () => {
    const pool = new pg.Pool({
      host: socketDirectory,
      port: 5432,
      user: "postgres",
      database: "postgres",
      max: 1,
    });
    const drops: unknown[] = [];
    pool.on("error", (error) => drops.push(error));
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          pool
            .query({
              name: `pick_${i % 3}`,
              text: `SELECT $1::int + ${i % 3} AS n, 1 / ($1::int % 5) AS q`,
              values: [i],
            })
            .then(
              (r) => r.rows[0].n as number,
              (error: { code?: string }) => error.code,
            ),
        ),
      );
      expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? "22012" : i + (i % 3))));
      expect(drops).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe("a new connection", () => {
  it("starts from a clean session: no prepared statement, open transaction or setting of the one before", async () => {
    const first = client();
    first.on("error", () => {});
    await first.connect();
    await named(first, "kept", "SELECT 1 AS one");
    await first.query("SET statement_timeout = 1234");
    await first.query("BEGIN");
    await first.query("INSERT INTO item (slug, size, parent) VALUES ('uncommitted', 1, 1)");
    // The client goes away mid-transaction, without a Terminate.
    (first as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();

    const second = client();
    await second.connect();
    try {
      expect(await named(second, "kept", "SELECT 1 AS one")).toEqual([{ one: 1 }]);
      expect((await second.query("SHOW statement_timeout")).rows).toEqual([{ statement_timeout: "0" }]);
      expect(
        (await second.query("SELECT count(*)::int AS n FROM item WHERE slug = 'uncommitted'")).rows,
      ).toEqual([{ n: 0 }]);
      expect((await second.query("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows).toEqual([
        { n: 1 },
      ]);
    } finally {
      await second.end();
    }
  });

  it("waits while another connection holds the one session, and is served when it ends", async () => {
    const first = client();
    await first.connect();
    await first.query("BEGIN");
    await first.query("INSERT INTO item (slug, size, parent) VALUES ('held', 1, 1)");
    const second = client();
    const secondConnected = second.connect();
    const order: string[] = [];
    const secondRead = secondConnected.then(async () => {
      order.push("second served");
      return (await second.query("SELECT count(*)::int AS n FROM item WHERE slug = 'held'")).rows;
    });
    await new Promise((r) => setTimeout(r, 200));
    order.push("first commits");
    await first.query("COMMIT");
    await first.end();
    expect(await secondRead).toEqual([{ n: 1 }]);
    expect(order).toEqual(["first commits", "second served"]);
    await second.end();
  });
});
