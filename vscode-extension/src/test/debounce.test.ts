import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Debouncer, Serializer, Timers } from "../common/debounce";

/** A manual clock: `advance(ms)` fires the timers that are due. */
class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  set(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.now + ms, callback });
    return id;
  }

  clear(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at <= this.now) {
        this.timers.delete(id);
        timer.callback();
      }
    }
  }
}

describe("Debouncer", () => {
  it("runs once after a burst of triggers, delay after the last", () => {
    const clock = new FakeTimers();
    let runs = 0;
    const debouncer = new Debouncer(() => runs++, 1000, clock);
    debouncer.trigger();
    clock.advance(600);
    debouncer.trigger();
    clock.advance(600);
    debouncer.trigger();
    assert.equal(runs, 0);
    clock.advance(999);
    assert.equal(runs, 0);
    clock.advance(1);
    assert.equal(runs, 1);
    assert.equal(debouncer.pending, false);
    clock.advance(5000);
    assert.equal(runs, 1);
  });

  it("runs again for a trigger after the delay", () => {
    const clock = new FakeTimers();
    let runs = 0;
    const debouncer = new Debouncer(() => runs++, 100, clock);
    debouncer.trigger();
    clock.advance(100);
    debouncer.trigger();
    clock.advance(100);
    assert.equal(runs, 2);
  });

  it("flush runs a pending action now, cancel drops it", () => {
    const clock = new FakeTimers();
    let runs = 0;
    const debouncer = new Debouncer(() => runs++, 100, clock);
    debouncer.flush();
    assert.equal(runs, 0);
    debouncer.trigger();
    debouncer.flush();
    assert.equal(runs, 1);
    clock.advance(1000);
    assert.equal(runs, 1);
    debouncer.trigger();
    debouncer.cancel();
    clock.advance(1000);
    assert.equal(runs, 1);
  });

  it("works with the real timers", async () => {
    let runs = 0;
    const debouncer = new Debouncer(() => runs++, 20);
    debouncer.trigger();
    debouncer.trigger();
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(runs, 1);
  });
});

describe("Serializer", () => {
  it("runs tasks one after the other, even after a failure", async () => {
    const serializer = new Serializer();
    const log: string[] = [];
    const task = (name: string, ms: number, fail = false) => async () => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
    };
    const first = serializer.run(task("stop", 30, true));
    const second = serializer.run(task("start", 5));
    await assert.rejects(first, /stop/);
    await second;
    assert.deepEqual(log, ["start stop", "end stop", "start start", "end start"]);
  });
});
