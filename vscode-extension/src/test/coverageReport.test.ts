import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { lineSpan, parseCoverageJson } from "../common/coverageReport";

const fixtures = path.resolve(__dirname, "..", "..", "src", "test", "fixtures");

describe("parseCoverageJson (a real coverage.py 7.17 report of shapes.py)", () => {
  const [shapes] = parseCoverageJson(readFileSync(path.join(fixtures, "coverage.json"), "utf8"));

  it("counts statements and branches as coverage.py's summary does", () => {
    assert.equal(shapes.path, "shapes.py");
    assert.deepEqual([shapes.covered, shapes.total], [16, 26]);
    assert.deepEqual([shapes.coveredBranches, shapes.totalBranches], [4, 12]);
  });

  it("gives each statement its executed state, 0-based, with the branches from its line", () => {
    const line10 = shapes.statements.find((s) => s.line === 9)!; // `if capacity <= 0:`
    assert.equal(line10.executed, true);
    assert.deepEqual(line10.branches, [
      { executed: false, toLine: 10, label: "jump to line 11" },
      { executed: true, toLine: 11, label: "jump to line 12" },
    ]);
    assert.equal(shapes.statements.find((s) => s.line === 10)?.executed, false);
    assert.ok(shapes.statements.every((s, i, all) => i === 0 || all[i - 1].line < s.line));
  });

  it("lists the methods as declarations, executed when any of their lines ran", () => {
    const names = shapes.declarations.map((d) => `${d.name}@${d.line}:${d.executed}`);
    assert.ok(names.includes("Stack.__init__@8:true"), names.join(" "));
    assert.ok(names.includes("Stack.pop@20:false"), names.join(" "));
  });

  it("refuses what is not a coverage.py report", () => {
    assert.throws(() => parseCoverageJson("{}"), /not a coverage.py JSON report/);
  });
});

describe("lineSpan", () => {
  it("spans a line from its first non-blank character to its last", () => {
    assert.deepEqual(lineSpan(["    x = 1   "], 0), { start: 4, end: 9 });
    assert.deepEqual(lineSpan([], 3), { start: 0, end: 0 });
  });
});
