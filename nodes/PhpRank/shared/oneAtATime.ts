const queues = new Map<string, Promise<void>>();

/**
 * Runs `work` once every earlier work under the same key, in this n8n process, has ended. Items of one
 * run start at once: two rows with the same URL would otherwise both find no report and both create one.
 */
export async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
	const earlier = queues.get(key) ?? Promise.resolve();
	const mine = earlier.then(work);
	const done = mine.then(
		() => undefined,
		() => undefined,
	);
	queues.set(key, done);
	try {
		return await mine;
	} finally {
		if (queues.get(key) === done) queues.delete(key);
	}
}
