import { request } from 'undici';
import type { PhpRankServer } from '../../../support/phpRank';

/** Changes made to phpRank between polls, as another phpRank user would make them. */
export async function createReports(server: PhpRankServer, urls: string[]): Promise<number[]> {
	const ids: number[] = [];
	for (const url of urls) {
		const answer = await request(`${server.url}/api/v1/reports`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${server.apiKey}`,
				accept: 'application/json',
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: new URLSearchParams({ url }).toString(),
		});
		const body = (await answer.body.json()) as { data: { id: number } };
		if (answer.statusCode !== 201) throw new Error(`creating ${url} answered ${answer.statusCode}`);
		ids.push(body.data.id);
	}
	return ids;
}

export async function deleteReport(server: PhpRankServer, id: number): Promise<void> {
	const answer = await request(`${server.url}/api/v1/reports/${id}`, {
		method: 'DELETE',
		headers: { authorization: `Bearer ${server.apiKey}`, accept: 'application/json' },
	});
	await answer.body.dump();
	if (answer.statusCode !== 200) throw new Error(`deleting report ${id} answered ${answer.statusCode}`);
}
