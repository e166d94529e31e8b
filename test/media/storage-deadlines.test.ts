// The deadline every storage call gets (storage-deadlines.ts), on the real local backend: a call that
// does not return in time ends in StorageUnavailableError with one warning, a put that is given up
// publishes nothing, and failed removals are tried again until the store takes them.
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StorageUnavailableError } from "../../src/domain/errors.ts";
import { LocalMediaStorage } from "../../src/media/local-storage.ts";
import { newMediaKey } from "../../src/media/media-key.ts";
import { removeWithRetries } from "../../src/media/removal-retries.ts";
import { isSelfServed, type MediaStorage } from "../../src/media/storage.ts";
import { uploadDeadlineMs, withDeadlines } from "../../src/media/storage-deadlines.ts";
import { makePdf } from "./helpers/make-files.ts";
import { listFiles, makeTempDir } from "./helpers/temp-dir.ts";

const TIMEOUT_MS = 300;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let local: LocalMediaStorage;
beforeEach(async () => {
  temp = await makeTempDir("storage-deadlines");
  local = new LocalMediaStorage({ dir: temp.dir, publicBaseUrl: "https://cms.example.com" });
});
afterEach(async () => temp.remove());

function recordingLogger() {
  const lines: { msg: string; data?: Record<string, unknown> }[] = [];
  return { lines, warn: (msg: string, data?: Record<string, unknown>) => void lines.push({ msg, data }) };
}

describe("withDeadlines", () => {
  it("gives an upload the base timeout plus its size at the slowest acceptable rate", () => {
    const deadlines = { timeoutMs: 5_000, minBytesPerSecond: 1024 * 1024 };
    expect(uploadDeadlineMs(deadlines, 0)).toBe(5_000);
    expect(uploadDeadlineMs(deadlines, 5 * 1024 * 1024)).toBe(10_000);
    expect(uploadDeadlineMs(deadlines, 1)).toBe(5_001);
  });

  it("ends a read the disk does not answer in StorageUnavailableError, warning once", async () => {
    const logger = recordingLogger();
    const storage = withDeadlines(local, { timeoutMs: TIMEOUT_MS, minBytesPerSecond: 1024 }, logger);
    if (!isSelfServed(storage)) throw new Error("the local storage must stay self-served");
    const key = newMediaKey("ws", "png");
    const file = path.join(temp.dir, ...key.split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    // Opening a FIFO blocks in the kernel until a writer comes: a disk that does not answer.
    execFileSync("mkfifo", [file]);
    try {
      const started = performance.now();
      const read = storage.read(key);
      await expect(read).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(read).rejects.toMatchObject({ retryAfterSeconds: 1 });
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(logger.lines).toEqual([
        {
          msg: "media storage did not answer in time",
          data: { operation: "read", key, timeoutMs: TIMEOUT_MS },
        },
      ]);
    } finally {
      // Let the blocked open return; the backend closes the file nobody waits for any more.
      closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
    }
  });

  it("passes other failures through unchanged and logs nothing", async () => {
    const logger = recordingLogger();
    const failure = new Error("access denied");
    const failing: MediaStorage = {
      put: async () => {
        throw failure;
      },
      delete: async () => {},
      putStream: async () => {},
      urlFor: (key) => key,
      load: async () => null,
      deleteUnder: async () => {},
    };
    const storage = withDeadlines(failing, { timeoutMs: TIMEOUT_MS, minBytesPerSecond: 1024 }, logger);
    await expect(storage.put("ws/key.png", new Uint8Array(1), "image/png")).rejects.toBe(failure);
    expect(logger.lines).toEqual([]);
    expect(isSelfServed(storage)).toBe(false);
  });
});

describe("LocalMediaStorage.put given up by its caller", () => {
  it("publishes nothing, not even a .partial file", async () => {
    const key = newMediaKey("ws", "pdf");
    const controller = new AbortController();
    controller.abort(new Error("deadline passed"));
    await expect(
      local.put(key, makePdf(), "application/pdf", { signal: controller.signal }),
    ).rejects.toThrow();
    expect(await listFiles(temp.dir)).toEqual([]);
    expect(await local.read(key)).toBeNull();
  });
});

describe("removeWithRetries", () => {
  it("tries again after each delay until the store takes the removal", async () => {
    const logger = recordingLogger();
    const remove = vi
      .fn<MediaStorage["delete"]>()
      .mockRejectedValueOnce(new StorageUnavailableError(1))
      .mockRejectedValueOnce(new Error("connection reset"))
      .mockResolvedValue(undefined);
    const storage: MediaStorage = {
      put: async () => {},
      delete: remove,
      putStream: async () => {},
      urlFor: (key) => key,
      load: async () => null,
      deleteUnder: async () => {},
    };

    expect(await removeWithRetries(storage, "ws/key.png", logger, { delaysMs: [10, 10, 10] })).toBe(false);
    await vi.waitFor(() => expect(remove).toHaveBeenCalledTimes(3));
    // The timeout was logged by the deadline itself; only the other failure is logged here.
    expect(logger.lines).toEqual([
      {
        msg: "Could not delete a stored media object; retrying in the background",
        data: { storageKey: "ws/key.png", error: "connection reset" },
      },
    ]);
  });

  it("removes once more after succeeding when asked to (a woken store may complete an abandoned put)", async () => {
    const remove = vi
      .fn<MediaStorage["delete"]>()
      .mockRejectedValueOnce(new StorageUnavailableError(1))
      .mockResolvedValue(undefined);
    const storage: MediaStorage = {
      put: async () => {},
      delete: remove,
      putStream: async () => {},
      urlFor: (key) => key,
      load: async () => null,
      deleteUnder: async () => {},
    };

    await removeWithRetries(storage, "ws/key.png", undefined, {
      delaysMs: [10, 10],
      repeatOnceRemoved: true,
    });
    await vi.waitFor(() => expect(remove).toHaveBeenCalledTimes(3));
    // Once, not forever: nothing follows the repeated removal.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(remove).toHaveBeenCalledTimes(3);
  });

  it("reports the object as orphaned when the last attempt fails", async () => {
    const logger = recordingLogger();
    const remove = vi.fn<MediaStorage["delete"]>().mockRejectedValue(new StorageUnavailableError(1));
    const storage: MediaStorage = {
      put: async () => {},
      delete: remove,
      putStream: async () => {},
      urlFor: (key) => key,
      load: async () => null,
      deleteUnder: async () => {},
    };

    await removeWithRetries(storage, "ws/key.png", logger, { delaysMs: [10] });
    await vi.waitFor(() => expect(logger.lines).toHaveLength(1));
    expect(remove).toHaveBeenCalledTimes(2);
    expect(logger.lines[0]).toEqual({
      msg: "Could not delete a stored media object; it is now orphaned",
      data: {
        storageKey: "ws/key.png",
        error: "The media storage did not answer in time; try again shortly",
      },
    });
  });
});
