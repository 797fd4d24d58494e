/** Seeded randomness: the same input always yields the same fake data. */

// Bound once: inside a vm context (as under jest) every global lookup of Math is slow, and this runs per value.
const { floor, imul } = Math;

export function hashString(text: string, seed = 0x811c9dc5): number {
	let hash = seed >>> 0;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = imul(hash, 0x01000193);
	}
	return hash >>> 0;
}

export type Random = () => number;

/** mulberry32: tiny, fast and good enough for fake data. */
export function seededRandom(seed: number): Random {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = imul(t ^ (t >>> 15), t | 1);
		t ^= t + imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function randomInt(random: Random, min: number, max: number): number {
	return min + floor(random() * (max - min + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
	return items[floor(random() * items.length)];
}

/** A plain loop: Array.from({ length }) is several times slower, and fake data is built per read. */
export function times<T>(count: number, make: (index: number) => T): T[] {
	const items: T[] = [];
	for (let i = 0; i < count; i++) items.push(make(i));
	return items;
}

export function pickSome<T>(random: Random, items: readonly T[], count: number): T[] {
	return times(count, () => pick(random, items));
}
