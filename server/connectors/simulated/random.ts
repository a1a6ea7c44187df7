/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so a simulated server with the same
 * seed produces the same accounts, prices and trades every run. Math.random is never used here.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Cannot pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Standard normal, by Box–Muller. */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A version-4 UUID drawn from this generator, so ids are deterministic too. */
  uuid(): string {
    const a = this.word();
    const b = this.word();
    const c = this.word();
    const d = this.word();
    // Version 4 in the 13th hex digit, variant 10xx in the 17th.
    const version = (b & 0xffff0fff) | 0x00004000;
    const variant = (c & 0x3fffffff) | 0x80000000;
    return `${hex32(a)}-${hex16(version >>> 16)}-${hex16(version)}-${hex16(variant >>> 16)}-${hex16(variant)}${hex32(d)}`;
  }

  private word(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }

  /** An independent generator derived from this one (e.g. for faults, so switching them on does not change the trades). */
  fork(): Random {
    return new Random(Math.floor(this.next() * 4294967296));
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const hex16 = (n: number) => (HEX[(n >>> 8) & 0xff] as string) + (HEX[n & 0xff] as string);
const hex32 = (n: number) => hex16(n >>> 16) + hex16(n);
