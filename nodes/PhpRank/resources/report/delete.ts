import { operation, returnDeletion } from '../../shared/operations';
import { setReportPath } from '../../shared/paths';

export const reportDeleteOperation = operation(
	{ name: 'Delete', value: 'delete', action: 'Delete a report by ID', description: 'Delete a report' },
	{ request: { method: 'DELETE' }, run: returnDeletion, preSend: [setReportPath] },
);

export const reportDeleteForAgents = 'Delete one phpRank SEO report by its numeric report ID. Returns deleted (true) and the id.';
