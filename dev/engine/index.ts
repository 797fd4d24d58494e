// Runs this package's nodes inside n8n-core's real execution engine, over real HTTP, with what an
// n8n instance adds around the engine (node and credential types, credentials, the editor's calls)
// because n8n's server and its node test harness are not published as libraries.
export { manualWorkflow, runNode, runWorkflow, producedText, TRIGGER_NODE_NAME, type RunNodeOptions, type RunNodeResult, type RunOptions } from './run';
export type { RunResult, WorkflowFixture } from './run';
export { runWebhook, type WebhookRequest, type WebhookRunResult } from './webhook';
export { runTool, type RunToolOptions, type RunToolResult } from './tool';
export { loadOptions, type ListSearchOptions, type LoadOptionsMethodOptions, type LoadOptionsOptions } from './loadOptions';
export { testCredential, type CredentialTestOptions } from './credentialTest';
export { credentialReferences, type CredentialsData } from './credentials';
export { HarnessNodeTypes, toToolDescription } from './nodeTypes';
export { logsToText, type LogLine } from './logs';
export { createPoller, type Poller, type PollerOptions } from './poll';
export { InMemoryDataTables, HARNESS_PROJECT_ID, DEFAULT_DATA_TABLES_MAX_SIZE_BYTES } from './dataTables';
export { submitForm, type CompletionPage, type FormRunResult } from './form';
export type { SubWorkflowRun } from './subWorkflows';
