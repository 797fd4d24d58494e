/**
 * Pages whose main text is the same or nearly so, as site-audit tools find them: the Jaccard similarity of the sets
 * of word 5-gram shingles (Broder's resemblance), estimated by MinHash. Each page keeps a fixed-size fingerprint, not
 * its text; candidates are found by locality-sensitive hashing (bands of the fingerprint), so a site of 50,000 pages
 * is not compared pair by pair.
 */

/** Words per shingle. */
export const SHINGLE_WORDS = 5;
/** Two pages whose estimated similarity is at least this are duplicates (1: the same text). */
export const DUPLICATE_SIMILARITY = 0.9;
/** Pages with less main text than this are not compared: a thin page's few words say little of its content. */
export const MIN_WORDS = 50;
/** The main text is read up to this many words. */
export const MAX_WORDS = 10_000;

const HASHES = 128;
// 16 bands of 8: pages 90% alike meet in a band with a chance of 99.99%, pages 50% alike 6%.
const BANDS = 16;
const ROWS = HASHES / BANDS;
/** A bucket's pages are compared with this many of its groups at most: a template shared by thousands stays linear. */
const LEADERS_PER_BUCKET = 8;

const { imul } = Math;

/** MurmurHash3's finalizer: every input bit moves every output bit. */
function mix(value: number): number {
	let h = value >>> 0;
	h = imul(h ^ (h >>> 16), 0x85ebca6b);
	h = imul(h ^ (h >>> 13), 0xc2b2ae35);
	return (h ^ (h >>> 16)) >>> 0;
}

const SEEDS = Uint32Array.from({ length: HASHES }, (_, index) => mix(0x9e3779b9 + imul(index + 1, 0x7f4a7c15)));

function hashWord(word: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < word.length; i++) hash = imul(hash ^ word.charCodeAt(i), 0x01000193);
	return hash >>> 0;
}

/**
 * A text's fingerprint: for each of 128 hash functions, the least hash of its shingles (lower-cased words of letters
 * and digits, 5 in a row); null when it has fewer than MIN_WORDS words.
 */
export function contentFingerprint(text: string): Uint32Array | null {
	const words: number[] = [];
	for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
		words.push(hashWord(word));
		if (words.length >= MAX_WORDS) break;
	}
	if (words.length < MIN_WORDS) return null;
	const fingerprint = new Uint32Array(HASHES).fill(0xffffffff);
	for (let start = 0; start + SHINGLE_WORDS <= words.length; start++) {
		let shingle = 0;
		for (let i = 0; i < SHINGLE_WORDS; i++) shingle = mix(imul(shingle, 31) + words[start + i]);
		for (let k = 0; k < HASHES; k++) {
			const value = mix(shingle ^ SEEDS[k]);
			if (value < fingerprint[k]) fingerprint[k] = value;
		}
	}
	return fingerprint;
}

/** The estimated Jaccard similarity of two texts' shingles: the share of hash functions whose least values agree. */
export function similarity(a: Uint32Array, b: Uint32Array): number {
	let same = 0;
	for (let k = 0; k < HASHES; k++) if (a[k] === b[k]) same++;
	return same / HASHES;
}

/**
 * The groups of duplicates among fingerprinted pages: pages linked by a similarity of DUPLICATE_SIMILARITY or more,
 * directly or through others. Each group lists its URLs in the order given; pages with no duplicate are in none.
 */
export function duplicateGroups(pages: ReadonlyArray<{ url: string; fingerprint: Uint32Array }>): string[][] {
	const parent = pages.map((_, index) => index);
	const root = (index: number): number => {
		while (parent[index] !== index) index = parent[index] = parent[parent[index]];
		return index;
	};
	for (let band = 0; band < BANDS; band++) {
		const buckets = new Map<number, number[]>();
		pages.forEach(({ fingerprint }, index) => {
			let key = band;
			for (let row = band * ROWS; row < (band + 1) * ROWS; row++) key = mix(imul(key, 31) + fingerprint[row]);
			const bucket = buckets.get(key);
			if (bucket === undefined) buckets.set(key, [index]);
			else bucket.push(index);
		});
		for (const bucket of buckets.values()) {
			if (bucket.length < 2) continue;
			const leaders: number[] = [];
			for (const index of bucket) {
				const alike = leaders.find((leader) => similarity(pages[leader].fingerprint, pages[index].fingerprint) >= DUPLICATE_SIMILARITY);
				if (alike !== undefined) parent[root(index)] = root(alike);
				else if (leaders.length < LEADERS_PER_BUCKET) leaders.push(index);
			}
		}
	}
	const groups = new Map<number, string[]>();
	pages.forEach(({ url }, index) => {
		const group = groups.get(root(index));
		if (group === undefined) groups.set(root(index), [url]);
		else group.push(url);
	});
	return [...groups.values()].filter((group) => group.length > 1);
}
