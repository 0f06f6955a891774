import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { UnitInfo } from "../common/protocol";
import { chooseUnit, unitAt, unitPickItems } from "../common/units";

function unit(name: string, kind: UnitInfo["kind"], start: [number, number], end: [number, number]): UnitInfo {
  return { name, kind, range: { start: { line: start[0], character: start[1] }, end: { line: end[0], character: end[1] } } };
}

const stack = unit("Stack", "class", [2, 0], [20, 0]);
const push = unit("Stack.push", "function", [5, 4], [9, 0]);
const area = unit("area", "function", [20, 0], [25, 0]);
const queue = unit("Queue", "class", [28, 0], [40, 13]);
const units = [queue, stack, area, push];

describe("unitAt", () => {
  it("finds the unit around the cursor", () => {
    assert.equal(unitAt(units, { line: 3, character: 7 })?.name, "Stack");
    assert.equal(unitAt(units, { line: 30, character: 0 })?.name, "Queue");
  });

  it("prefers the innermost unit", () => {
    assert.equal(unitAt(units, { line: 6, character: 8 })?.name, "Stack.push");
  });

  it("gives the unit that begins where another ends", () => {
    assert.equal(unitAt(units, { line: 20, character: 0 })?.name, "area");
  });

  it("includes the range's start and end positions", () => {
    assert.equal(unitAt(units, { line: 28, character: 0 })?.name, "Queue");
    assert.equal(unitAt(units, { line: 40, character: 13 })?.name, "Queue");
    assert.equal(unitAt(units, { line: 40, character: 14 }), undefined);
  });

  it("finds nothing between units", () => {
    assert.equal(unitAt(units, { line: 26, character: 0 }), undefined);
    assert.equal(unitAt([], { line: 0, character: 0 }), undefined);
  });
});

describe("chooseUnit", () => {
  it("takes the unit at the cursor", () => {
    assert.deepEqual(chooseUnit(units, { line: 3, character: 0 }), { kind: "atCursor", unit: stack });
  });

  it("takes the only unit of the file when the cursor is elsewhere", () => {
    assert.deepEqual(chooseUnit([stack], { line: 50, character: 0 }), { kind: "only", unit: stack });
  });

  it("offers a quick pick in file order otherwise", () => {
    const choice = chooseUnit(units, { line: 26, character: 0 });
    assert.equal(choice.kind, "pick");
    if (choice.kind !== "pick") return;
    assert.deepEqual(choice.items.map((i) => i.unit.name), ["Stack", "Stack.push", "area", "Queue"]);
    assert.deepEqual(choice.items[0], { label: "$(symbol-class) Stack", description: "class, line 3", unit: stack });
    assert.equal(choice.items[2].label, "$(symbol-method) area");
  });

  it("reports a file without units (or with a syntax error)", () => {
    assert.deepEqual(chooseUnit([], { line: 0, character: 0 }), { kind: "none" });
  });

  it("offers a pick when there is no cursor", () => {
    assert.equal(chooseUnit(units, undefined).kind, "pick");
    assert.equal(unitPickItems([]).length, 0);
  });
});
