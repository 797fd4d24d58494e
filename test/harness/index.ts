// Runs this package's nodes inside n8n-core's real execution engine, over real
// HTTP, because n8n's own node test harness is not published.
export { runNode, runWorkflow, producedText, TRIGGER_NODE_NAME, NODE_UNDER_TEST_NAME } from './run';
export type { RunNodeOptions, RunNodeResult, RunOptions, RunResult, WorkflowFixture } from './run';
export { runTool, AGENT_NODE_NAME } from './tool';
export type { RunToolOptions, RunToolResult } from './tool';
export { loadOptions, LOAD_OPTIONS_NODE_NAME, type ListSearchOptions, type LoadOptionsMethodOptions, type LoadOptionsOptions } from './loadOptions';
export { testCredential } from './credentialTest';
export type { CredentialTestOptions } from './credentialTest';
export { HarnessCredentialsHelper, HarnessCredentialTypes } from './credentials';
export type { CredentialsData, CredentialTypesOptions } from './credentials';
export { HarnessNodeTypes, toToolDescription } from './nodeTypes';
export type { NodeTypesOptions } from './nodeTypes';
export { captureLogs, logsToText, toSearchableText } from './logs';
export type { LogCapture, LogLevel, LogLine } from './logs';
export { distToSourcePath } from './loaders';
export { harnessFilesDir } from './setup';
export { createPoller } from './poll';
export type { Poller, PollerOptions } from './poll';
