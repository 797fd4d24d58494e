import { operation, returnDeletion } from '../../shared/operations';
import { setReportPath } from '../../shared/paths';

export const reportDeleteOperation = operation(
	{ name: 'Delete', value: 'delete', action: 'Delete a report by ID', description: 'Delete a report' },
	{ method: 'DELETE' },
	returnDeletion,
	[setReportPath],
);
