// The resident memory of a server process, read from /proc/<pid>/status (Linux): VmRSS now, VmHWM the
// kernel's high-water mark since the start. Every thread of the process counts, the embedded
// database's worker included. A watch samples it while attacks run, so a peak between two attacks is
// seen even when it is gone by the next check.
import { readFileSync } from "node:fs";

const MIB = 1024 * 1024;

/** A field of /proc/<pid>/status in bytes; null once the process is gone. */
function statusBytes(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export const rssBytes = (pid: number): number | null => statusBytes(pid, "VmRSS");
export const highWaterBytes = (pid: number): number | null => statusBytes(pid, "VmHWM");
export const mib = (bytes: number | null): string =>
  bytes === null ? "gone" : `${(bytes / MIB).toFixed(0)} MiB`;

export class MemoryWatch {
  private peak = 0;
  /** The largest reading since the last takeWindowPeak(): one attack's own peak. */
  private windowPeak = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly label: string,
    readonly pid: number,
  ) {}

  /** The idle level: the median of `samples` readings a second apart. */
  async idle(samples = 5): Promise<number> {
    const readings: number[] = [];
    for (let i = 0; i < samples; i++) {
      readings.push(rssBytes(this.pid) ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    readings.sort((a, b) => a - b);
    return readings[Math.floor(readings.length / 2)] ?? 0;
  }

  /** Samples every `everyMs` until stop(); peakSeen() is the largest reading. */
  start(everyMs = 100): void {
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** The largest reading since the previous call (one attack's), and a new window begun. */
  takeWindowPeak(): number {
    this.sample();
    const peak = this.windowPeak;
    this.windowPeak = 0;
    return peak;
  }

  private sample(): void {
    const rss = rssBytes(this.pid) ?? 0;
    this.peak = Math.max(this.peak, rss);
    this.windowPeak = Math.max(this.windowPeak, rss);
  }

  peakSeen(): number {
    return this.peak;
  }
}

/**
 * The rule memory must meet after the attacks: back at or below idle plus the larger of 64 MiB and a
 * quarter of idle (a heap that grew a little and kept it is fine; hundreds of megabytes held are not).
 */
export function recoveryThreshold(idle: number): number {
  return idle + Math.max(64 * MIB, idle / 4);
}
export const RECOVERY_RULE = "idle + max(64 MiB, 25% of idle)";
