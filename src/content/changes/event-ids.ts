// Event ids that sort in log order (issue #37 item 5): `evt_`, then 13 base-36 characters of a tick,
// then 11 random ones — 24 characters, the shape ids always had. A tick is milliseconds × 2^20 plus a
// counter, and comes from one clock kept in the database (the "EventIdClock" sequence), read and
// advanced under the append lock (change-log.ts): every append's ticks are above the previous
// append's, whichever process made either and whatever its own clock says, and rise row by row in the
// order the positions are drawn. So ids sort exactly as positions do, without showing them: the
// counter starts at a random point in each new millisecond, and only counts the events of that
// millisecond, not the log's.
import { randomBytes, randomInt } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const COUNTER_BITS = 20;
const TIME_CHARACTERS = 9;
/** 36^4 > 2^20: the counter always fits. */
const COUNTER_CHARACTERS = 4;
const TAIL_CHARACTERS = 11;

/** The random characters after an id's tick: two events never share a tick, these only make ids unguessable. */
export function eventIdTail(): string {
  return BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString(36)
    .padStart(TAIL_CHARACTERS, "0")
    .slice(-TAIL_CHARACTERS);
}

/**
 * Where a new millisecond's counter starts: somewhere in its lower half, so a reader cannot tell how
 * many events other workspaces appended in that millisecond, and the upper half leaves room to count.
 */
export function tickStartWithinMillisecond(): number {
  return randomInt(2 ** (COUNTER_BITS - 1));
}

/** `x` (a non-negative bigint expression) in `width` base-36 digits, most significant first. */
function base36Sql(x: string, width: number): string {
  const digits: string[] = [];
  for (let i = width - 1; i >= 0; i--)
    digits.push(`substr('${ALPHABET}', ((${x}) / ${36n ** BigInt(i)} % 36)::int + 1, 1)`);
  return digits.join(" || ");
}

export const EVENT_ID_SQL = {
  /**
   * The first tick of an append of `count` events, advancing the clock past its last one: the clock's
   * next value, or now (the database's clock, one for every process) at `start` in the millisecond,
   * whichever is later. A sequence, not a row: the append statement's snapshot predates its lock, a
   * sequence's value does not.
   */
  firstTick(count: string, start: string): string {
    const now = `((floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint << ${COUNTER_BITS}) + ${start}::bigint)`;
    return `setval('"EventIdClock"', GREATEST(nextval('"EventIdClock"'), ${now}) + ${count}::bigint - 1) - ${count}::bigint + 1`;
  },
  /** The id of the event at `tick`, with `tail` (eventIdTail()) after it. */
  id(tick: string, tail: string): string {
    const time = base36Sql(`(${tick}) >> ${COUNTER_BITS}`, TIME_CHARACTERS);
    const counter = base36Sql(`(${tick}) & ${2 ** COUNTER_BITS - 1}`, COUNTER_CHARACTERS);
    return `'evt_' || ${time} || ${counter} || ${tail}`;
  },
};
