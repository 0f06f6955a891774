import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoverageDocument, inlineCode, lastLine } from "../common/coverage";
import type { CoverageParams, CoverageUnit } from "../common/protocol";

const URI = "file:///ws/shapes.py";

function unit(name: string, start: number, endExclusive: number, extra: Partial<CoverageUnit> = {}): CoverageUnit {
  return {
    name,
    kind: "class",
    range: { start: { line: start, character: 0 }, end: { line: endExclusive, character: 0 } },
    covered: 14,
    total: 16,
    state: "done",
    ...extra,
  };
}

/** The example of docs/lsp-protocol.md. */
function example(extra: Partial<CoverageParams> = {}): CoverageParams {
  return {
    uri: URI,
    version: 3,
    lines: { covered: [4, 5], partial: [7], uncovered: [9, 10] },
    missing: [
      {
        line: 7,
        description: "line 8 didn't jump to line 9 because the condition on line 8 was never true",
        closestMiss: "x = 9",
      },
    ],
    units: [unit("Stack", 2, 20, { state: "running" })],
    ...extra,
  };
}

function docWith(params: CoverageParams): CoverageDocument {
  const doc = new CoverageDocument(URI);
  doc.update(params);
  return doc;
}

describe("CoverageDocument.marks from a miogen/coverage notification", () => {
  it("gives one mark per covered, partial and uncovered line", () => {
    const marks = docWith(example()).marks();
    assert.deepEqual(marks.covered, [4, 5]);
    assert.deepEqual(marks.partial.map((m) => m.line), [7]);
    assert.deepEqual(marks.uncovered.map((m) => m.line), [9, 10]);
    assert.deepEqual(marks.stale, []);
  });

  it("names the missing branch and the closest miss on a partial line", () => {
    const [partial] = docWith(example()).marks().partial;
    assert.match(partial.hover, /condition on line 8 was never true/);
    assert.match(partial.hover, /closest miss: `x = 9`/);
  });

  it("explains an uncovered line by the nearest missed branch above it in its unit", () => {
    const [nine] = docWith(example()).marks().uncovered;
    assert.match(nine.hover, /not run/);
    assert.match(nine.hover, /Missing branch \(line 8\): line 8 didn't jump to line 9/);
    assert.match(nine.hover, /`x = 9`/);
  });

  it("lists several missed branches of one line", () => {
    const params = example({
      missing: [
        { line: 7, description: "never true", closestMiss: "x = 9" },
        { line: 7, description: "never false", closestMiss: null },
      ],
    });
    const hover = docWith(params).marks().partial[0].hover;
    assert.match(hover, /- never true — closest miss: `x = 9`\n- never false$/);
  });

  it("lets a partial or uncovered line win over covered", () => {
    const marks = docWith(example({ lines: { covered: [4, 7, 9], partial: [7], uncovered: [9] } })).marks();
    assert.deepEqual(marks.covered, [4]);
  });

  it("greys out a unit the server reports stale and keeps its lines out", () => {
    const params = example({
      lines: { covered: [4, 25], partial: [], uncovered: [26] },
      units: [unit("Stack", 2, 20, { state: "stale" }), unit("Queue", 22, 30)],
    });
    const marks = docWith(params).marks();
    assert.deepEqual(marks.stale.map((s) => [s.unit, s.startLine, s.endLine]), [["Stack", 2, 19]]);
    assert.deepEqual(marks.covered, [25]);
    assert.match(marks.stale[0].hover, /`Stack` changed since its last result/);
  });

  it("tolerates a notification with missing fields", () => {
    const marks = docWith({ uri: URI, lines: undefined, units: undefined, missing: undefined } as never).marks();
    assert.deepEqual(marks, { covered: [], partial: [], uncovered: [], stale: [] });
  });
});

describe("CoverageDocument local edits", () => {
  const twoUnits = () =>
    example({
      lines: { covered: [3, 4, 12, 13], partial: [14], uncovered: [15] },
      missing: [{ line: 14, description: "never true", closestMiss: "n = 0" }],
      units: [unit("Stack", 2, 10), unit("Queue", 11, 20, { covered: 3, total: 4 })],
    });

  it("drops the marks of an edited unit at once and greys it", () => {
    const doc = docWith(twoUnits());
    doc.edit(4, [{ startLine: 13, endLine: 13, newLineCount: 0 }]); // typing on line 13, inside Queue
    const marks = doc.marks();
    assert.deepEqual(marks.covered, [3, 4]);
    assert.deepEqual(marks.partial, []);
    assert.deepEqual(marks.uncovered, []);
    assert.deepEqual(marks.stale.map((s) => s.unit), ["Queue"]);
  });

  it("shifts the marks below an edit outside any unit", () => {
    const doc = docWith(twoUnits());
    doc.edit(4, [{ startLine: 10, endLine: 10, newLineCount: 2 }]); // two lines inserted between the units
    const marks = doc.marks();
    assert.deepEqual(marks.covered, [3, 4, 14, 15]);
    assert.deepEqual(marks.partial.map((m) => m.line), [16]);
    assert.deepEqual(marks.uncovered.map((m) => m.line), [17]);
    assert.deepEqual(marks.stale, []);
    assert.deepEqual(doc.units().map((u) => [u.name, u.startLine, u.endLine]), [["Stack", 2, 9], ["Queue", 13, 21]]);
  });

  it("shifts up after deleted lines and grows or shrinks the edited unit", () => {
    const doc = docWith(twoUnits());
    doc.edit(4, [{ startLine: 5, endLine: 7, newLineCount: 0 }]); // lines 5-7 joined into one: two lines fewer
    assert.deepEqual(doc.units().map((u) => [u.name, u.startLine, u.endLine, u.editedLocally]), [
      ["Stack", 2, 7, true],
      ["Queue", 9, 17, false],
    ]);
    assert.deepEqual(doc.marks().covered, [10, 11]);
  });

  it("replays edits made after the result's version, and forgets those it already includes", () => {
    const doc = new CoverageDocument(URI);
    doc.update(twoUnits()); // version 3
    doc.edit(4, [{ startLine: 0, endLine: 0, newLineCount: 1 }]); // a line inserted at the top
    assert.deepEqual(doc.marks().covered, [4, 5, 13, 14]);

    doc.update({ ...twoUnits(), version: 3 }); // a late result for version 3: the edit still applies
    assert.deepEqual(doc.marks().covered, [4, 5, 13, 14]);

    doc.update({ ...twoUnits(), version: 4 }); // the server has seen the edit: take its lines as they are
    assert.deepEqual(doc.marks().covered, [3, 4, 12, 13]);
  });

  it("keeps a locally edited unit stale until a result includes the edit", () => {
    const doc = docWith(twoUnits());
    doc.edit(4, [{ startLine: 3, endLine: 3, newLineCount: 0 }]);
    doc.update({ ...twoUnits(), version: 3 });
    assert.deepEqual(doc.marks().stale.map((s) => s.unit), ["Stack"]);
    doc.update({ ...twoUnits(), version: 5 });
    assert.deepEqual(doc.marks().stale, []);
  });

  it("ignores edits before any result", () => {
    const doc = new CoverageDocument(URI);
    assert.equal(doc.edit(1, [{ startLine: 0, endLine: 0, newLineCount: 1 }]), false);
    assert.equal(doc.hasResult, false);
  });
});

describe("CoverageDocument.summary", () => {
  it("adds covered and total branches over the units with a result", () => {
    const params = example({
      units: [unit("Stack", 2, 10), unit("Queue", 11, 20, { covered: 3, total: 4 }), unit("f", 21, 22, { state: "none", total: 2, covered: 0 })],
    });
    assert.deepEqual(docWith(params).summary(), { covered: 17, total: 20, units: 2, stale: 0 });
  });

  it("counts stale units apart, locally edited or reported stale", () => {
    const params = example({ units: [unit("Stack", 2, 10), unit("Queue", 11, 20, { covered: 3, total: 4, state: "stale" })] });
    const doc = docWith(params);
    assert.deepEqual(doc.summary(), { covered: 14, total: 16, units: 1, stale: 1 });
    doc.edit(4, [{ startLine: 3, endLine: 3, newLineCount: 0 }]);
    assert.deepEqual(doc.summary(), { covered: 0, total: 0, units: 0, stale: 2 });
  });

  it("is undefined before any result", () => {
    assert.equal(docWith(example({ units: [unit("Stack", 2, 10, { state: "none", total: 0, covered: 0 })] })).summary(), undefined);
  });
});

describe("helpers", () => {
  it("lastLine treats an end at character 0 as exclusive", () => {
    assert.equal(lastLine({ start: { line: 2, character: 0 }, end: { line: 20, character: 0 } }), 19);
    assert.equal(lastLine({ start: { line: 2, character: 0 }, end: { line: 19, character: 12 } }), 19);
    assert.equal(lastLine({ start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }), 2);
  });

  it("inlineCode fences text holding backticks", () => {
    assert.equal(inlineCode("x = 9"), "`x = 9`");
    assert.equal(inlineCode("s = '`'"), "`` s = '`' ``");
  });
});
