/** Laravel serialises database timestamps (whole seconds) with a microsecond field. */
export function formatTimestamp(epochSeconds: number): string {
	return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, '.000000Z');
}

export function nowInSeconds(): number {
	return Math.floor(Date.now() / 1000);
}
