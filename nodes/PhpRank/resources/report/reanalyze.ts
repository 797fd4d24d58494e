import type { INodePropertyOptions } from 'n8n-workflow';
import { FORM_HEADERS } from '../../shared/client';
import { REPORT_ITEM_FOR_AGENTS } from '../../shared/descriptions';
import { setReportPath } from '../../shared/paths';
import { updateReport } from './update';

// Update's Re-Analyze as an action of its own: what most runs come for. Its fields (Report, Options) are declared
// once for every operation on one report.
export const reportReanalyzeOperation: INodePropertyOptions = {
	name: 'Re-Analyze',
	value: 'reanalyze',
	action: 'Re-analyze a report by ID',
	description: 'Re-analyze a report',
	routing: {
		request: { method: 'PUT', headers: FORM_HEADERS, body: { results: 1 } },
		// paginate hands the prepared request to updateReport, which sends it through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [setReportPath] },
		operations: { pagination: updateReport },
	},
};

export const reportReanalyzeForAgents = `Analyze the page of one phpRank SEO report again, by its numeric report ID, to refresh its score: phpRank fetches the page anew. Returns the report: ${REPORT_ITEM_FOR_AGENTS}. With Add Previous Score it also has previousResult, resultChange, newlyFailedChecks and fixedChecks (the checks that fail now and did not before, and those fixed, by importance); newlyFailedCheckNames and fixedCheckNames give their titles).`;
