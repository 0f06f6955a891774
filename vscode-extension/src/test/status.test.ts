import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { GenerateResult, JobStatusParams } from "../common/protocol";
import { JobTracker, statusBarContent, summaryMessage, withoutServerProgress } from "../common/status";

const job = (unit: string, state: JobStatusParams["state"], percent?: number): JobStatusParams => ({
  uri: "file:///ws/shapes.py",
  unit,
  state,
  percent,
});

describe("statusBarContent", () => {
  it("shows the active file's branch coverage", () => {
    const content = statusBarContent({ serverState: "running", summary: { covered: 14, total: 16, units: 2, stale: 0 }, jobs: [] });
    assert.equal(content.text, "$(beaker) 14/16");
    assert.match(content.tooltip, /14 of 16 branches/);
  });

  it("marks a figure that leaves out stale units, and says when all are stale", () => {
    const some = statusBarContent({ serverState: "running", summary: { covered: 5, total: 6, units: 1, stale: 1 }, jobs: [] });
    assert.equal(some.text, "$(beaker) 5/6*");
    assert.match(some.tooltip, /1 unit changed since the last result, not counted/);
    const all = statusBarContent({ serverState: "running", summary: { covered: 0, total: 0, units: 0, stale: 2 }, jobs: [] });
    assert.equal(all.text, "$(beaker) stale");
  });

  it("spins while a job runs", () => {
    const content = statusBarContent({
      serverState: "running",
      summary: { covered: 14, total: 16, units: 1, stale: 0 },
      jobs: [job("Queue", "queued"), job("Stack", "running", 41.6)],
    });
    assert.equal(content.text, "$(sync~spin) Stack 42% (+1)");
    assert.match(content.tooltip, /Queue: queued/);
  });

  it("warns when the server failed", () => {
    const content = statusBarContent({ serverState: "failed", problem: "miogen needs Python 3.11", jobs: [] });
    assert.equal(content.text, "$(warning) miogen");
    assert.match(content.tooltip, /^miogen needs Python 3.11/);
  });

  it("says so when there is nothing yet", () => {
    assert.equal(statusBarContent({ serverState: "running", jobs: [] }).text, "$(beaker) miogen");
    assert.equal(statusBarContent({ serverState: "starting", jobs: [] }).text, "$(sync~spin) miogen");
  });
});

describe("JobTracker", () => {
  it("forgets only the jobs of a server that stopped (one server per workspace folder)", () => {
    const jobs = new JobTracker();
    jobs.update({ ...job("Stack", "running"), uri: "file:///a/shapes.py" });
    jobs.update({ ...job("Ledger", "queued"), uri: "file:///b/ledger.py" });
    jobs.clearWhere((j) => j.uri.startsWith("file:///a/"));
    assert.deepEqual(jobs.active().map((j) => j.unit), ["Ledger"]);
  });

  it("keeps queued and running jobs, drops finished ones", () => {
    const jobs = new JobTracker();
    assert.equal(jobs.update(job("Stack", "queued")), true);
    assert.equal(jobs.update(job("Stack", "running", 10)), true);
    assert.equal(jobs.update(job("Queue", "running", 50)), true);
    assert.deepEqual(jobs.active().map((j) => [j.unit, j.state]), [["Stack", "running"], ["Queue", "running"]]);
    assert.equal(jobs.update(job("Stack", "done")), true);
    assert.equal(jobs.update(job("Stack", "cancelled")), false);
    assert.deepEqual(jobs.active().map((j) => j.unit), ["Queue"]);
    assert.equal(jobs.get("file:///ws/shapes.py", "Queue")?.percent, 50);
    jobs.clear();
    assert.deepEqual(jobs.active(), []);
  });
});

describe("summaryMessage", () => {
  const result: GenerateResult = {
    uri: "file:///ws/shapes.py",
    unit: "Stack",
    tests: 12,
    covered: 16,
    total: 16,
    testFile: "/ws/tests/test_shapes.py",
    testUri: "file:///ws/tests/test_shapes.py",
    applied: true,
  };

  it("reads like '12 tests, 16/16 branches'", () => {
    assert.equal(summaryMessage(result, "tests/test_shapes.py"), "miogen: Stack: 12 tests, 16/16 branches → tests/test_shapes.py");
    assert.equal(summaryMessage({ ...result, tests: 1 }, "t.py"), "miogen: Stack: 1 test, 16/16 branches → t.py");
  });

  it("says why nothing was written", () => {
    assert.equal(
      summaryMessage({ ...result, applied: false }, "tests/test_shapes.py"),
      "miogen: no tests written for Stack to tests/test_shapes.py: the edit was not applied.",
    );
    assert.equal(
      summaryMessage({ ...result, applied: false, message: "already inserted" }, "tests/test_shapes.py"),
      "miogen: no tests written for Stack to tests/test_shapes.py: already inserted.",
    );
  });
});

describe("one indicator per job", () => {
  it("leaves out of the status bar a job that a notification shows, until it is done", () => {
    const tracker = new JobTracker();
    tracker.update(job("Stack", "running", 10));
    tracker.update(job("Queue", "queued"));
    const undo = tracker.showElsewhere("file:///ws/shapes.py", "Stack");
    assert.deepEqual(tracker.active().map((j) => j.unit), ["Queue"]);
    undo();
    undo(); // twice is once
    assert.deepEqual(tracker.active().map((j) => j.unit), ["Stack", "Queue"]);
  });

  it("tells the server the client shows no work-done progress", () => {
    const capabilities = withoutServerProgress({ window: { workDoneProgress: true, showMessage: {} } });
    assert.equal(capabilities.window?.workDoneProgress, false);
    assert.deepEqual(Object.keys(capabilities.window ?? {}).sort(), ["showMessage", "workDoneProgress"]);
    const bare: { window?: { workDoneProgress?: boolean } } = {};
    assert.equal(withoutServerProgress(bare).window?.workDoneProgress, false);
  });
});
