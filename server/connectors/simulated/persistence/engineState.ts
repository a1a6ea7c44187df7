/**
 * A simulated server's whole state as bytes, and back: everything the engine and its simulated
 * traders hold (accounts, balances, positions, orders, deals, groups, symbols, prices, the
 * journal, the event window, the remembered operation ids, the random generators and the ids the
 * flavour issues next), whatever shape it takes.
 *
 * Generic on purpose, so state added to the engine later is carried without a list of fields to
 * keep up to date: the objects of the engine are walked field by field (class instances and plain
 * objects, so a counter a closure holds is written back into that same object), and every other
 * value (Maps, Sets, arrays, and what they hold) is taken whole, all in one `v8.serialize` so objects shared between parts stay shared. Restoring
 * writes those fields into a freshly built engine of the same options, keeping its objects (and
 * so every closure or part that refers to them). What is not state and is left as the fresh
 * engine has it: the clock, functions, and listener sets (the connections of this process).
 * `tests/server/simulatedPersistence.test.ts` fails when the engine gains state this drops.
 */
import { deserialize, serialize } from "node:v8";

/** Field names that are wiring, not state. */
const NOT_STATE = new Set(["clock", "listeners"]);

const FIELDS = "\u0000fields";
/** A part met a second time (the traders share the engine's context): the fresh engine shares it too. */
const SHARED = "\u0000shared";

interface Fields {
  [FIELDS]: Record<string, unknown>;
}

/** The state under `root` (an object whose fields are walked), as bytes. */
export function captureState(root: object): Uint8Array {
  return serialize(walk(root, new Set()));
}

/** Writes state captured from an object built the same way into `root`. */
export function restoreState(root: object, bytes: Uint8Array): void {
  const captured = deserialize(bytes) as unknown;
  if (!isFields(captured)) throw new Error("Not a captured simulated server state.");
  apply(root, captured);
}

function walk(object: object, seen: Set<object>): Fields | typeof SHARED {
  if (seen.has(object)) return SHARED;
  seen.add(object);
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(object)) {
    if (NOT_STATE.has(name) || typeof value === "function") continue;
    if (isWalked(value)) fields[name] = walk(value, seen);
    else if (isGenerator(value)) throw new Error(`A simulated server cannot be captured while "${name}" is still running.`);
    else fields[name] = value;
  }
  return { [FIELDS]: fields };
}

function apply(target: object, captured: Fields): void {
  const record = target as Record<string, unknown>;
  for (const [name, value] of Object.entries(captured[FIELDS])) {
    const current = record[name];
    if (value === SHARED) continue;
    if (isFields(value) && current !== null && typeof current === "object") apply(current, value);
    else record[name] = materialize(value);
  }
}

/** A part the fresh engine does not have (it was made after construction): a plain object. */
function materialize(value: unknown): unknown {
  if (!isFields(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value[FIELDS])) if (v !== SHARED) out[name] = materialize(v);
  return out;
}

/** Objects (class instances, plain objects): walked field by field, kept as objects on restore. */
function isWalked(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  if (value instanceof Map || value instanceof Set || Array.isArray(value) || value instanceof Date || ArrayBuffer.isView(value)) return false;
  return !isGenerator(value);
}

function isGenerator(value: unknown): boolean {
  return value !== null && typeof value === "object" && typeof (value as { next?: unknown }).next === "function" && Symbol.iterator in value;
}

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === "object" && FIELDS in value;
}
