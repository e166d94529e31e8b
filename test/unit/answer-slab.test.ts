// The REST cache's byte store (src/cache/answer-slab.ts): answers written round one buffer, readable
// until the writer has gone round past them, read out as copies.
import { describe, expect, it } from "vitest";
import { AnswerSlab } from "../../src/cache/answer-slab.ts";

const bytes = (text: string) => Buffer.from(text);

describe("answer slab", () => {
  it("gives back what was written, as a copy the slab's later writes cannot change", () => {
    const slab = new AnswerSlab(16);
    const slot = slab.write(bytes("hello"));
    expect(slot).not.toBeNull();
    const read = slab.read(slot!);
    expect(read?.toString()).toBe("hello");
    slab.write(bytes("0123456789"));
    slab.write(bytes("abcdefghij"));
    expect(read?.toString()).toBe("hello");
  });

  it("keeps an answer readable until the writer comes round to it, then reports it gone", () => {
    const slab = new AnswerSlab(10);
    const first = slab.write(bytes("aaaa"))!;
    const second = slab.write(bytes("bbbb"))!;
    expect(slab.holds(first) && slab.holds(second)).toBe(true);
    // Four more bytes do not fit in the tail of two: the tail is skipped and "cccc" overwrites "aaaa".
    const third = slab.write(bytes("cccc"))!;
    expect(slab.holds(first)).toBe(false);
    expect(slab.read(first)).toBeNull();
    expect(slab.read(second)?.toString()).toBe("bbbb");
    expect(slab.read(third)?.toString()).toBe("cccc");
  });

  it("never splits an answer across the end of the buffer", () => {
    const slab = new AnswerSlab(10);
    slab.write(bytes("123456"));
    const wrapped = slab.write(bytes("abcdef"))!;
    expect(slab.read(wrapped)?.toString()).toBe("abcdef");
  });

  it("keeps nothing larger than itself, and an empty answer costs nothing", () => {
    const slab = new AnswerSlab(8);
    expect(slab.write(bytes("123456789"))).toBeNull();
    const empty = slab.write(bytes(""))!;
    expect(slab.read(empty)?.length).toBe(0);
  });

  it("tells how far round the writer has gone since a slot was written", () => {
    const slab = new AnswerSlab(100);
    const slot = slab.write(Buffer.alloc(10))!;
    expect(slab.age(slot)).toBeCloseTo(0.1);
    slab.write(Buffer.alloc(50));
    expect(slab.age(slot)).toBeCloseTo(0.6);
  });
});
