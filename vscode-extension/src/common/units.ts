/** Picking the class or function under the cursor from the `miogen/units` answer. */

import type { Position, Range, UnitInfo } from "./protocol";

export function comparePositions(a: Position, b: Position): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}

export function rangeContains(range: Range, position: Position): boolean {
  return comparePositions(range.start, position) <= 0 && comparePositions(position, range.end) <= 0;
}

/**
 * The unit whose range holds `position`. With nesting the innermost one wins (the latest start; for
 * ties the shortest), which also settles a cursor on the boundary of two adjacent units in favour of
 * the one that begins there.
 */
export function unitAt(units: readonly UnitInfo[], position: Position): UnitInfo | undefined {
  let best: UnitInfo | undefined;
  for (const unit of units) {
    if (!rangeContains(unit.range, position)) continue;
    if (
      !best ||
      comparePositions(unit.range.start, best.range.start) > 0 ||
      (comparePositions(unit.range.start, best.range.start) === 0 && comparePositions(unit.range.end, best.range.end) < 0)
    ) {
      best = unit;
    }
  }
  return best;
}

export interface UnitPickItem {
  label: string;
  description: string;
  unit: UnitInfo;
}

/** Quick-pick entries, in file order: "$(symbol-class) Stack" with "class, line 3". */
export function unitPickItems(units: readonly UnitInfo[]): UnitPickItem[] {
  return [...units]
    .sort((a, b) => comparePositions(a.range.start, b.range.start))
    .map((unit) => ({
      label: `${unit.kind === "class" ? "$(symbol-class)" : "$(symbol-method)"} ${unit.name}`,
      description: `${unit.kind}, line ${unit.range.start.line + 1}`,
      unit,
    }));
}

export type UnitChoice =
  | { kind: "atCursor"; unit: UnitInfo }
  | { kind: "only"; unit: UnitInfo }
  | { kind: "pick"; items: UnitPickItem[] }
  | { kind: "none" };

/** What the command does: take the unit at the cursor, the only unit, ask, or report there is none. */
export function chooseUnit(units: readonly UnitInfo[], cursor: Position | undefined): UnitChoice {
  if (units.length === 0) return { kind: "none" };
  const atCursor = cursor ? unitAt(units, cursor) : undefined;
  if (atCursor) return { kind: "atCursor", unit: atCursor };
  if (units.length === 1) return { kind: "only", unit: units[0] };
  return { kind: "pick", items: unitPickItems(units) };
}
