/**
 * The engine stores a node's failure in the run data only as a plain-object
 * copy (`{ ...error, message, stack }`), which loses the error's class. Tests
 * need the instance the node actually threw (NodeApiError / NodeOperationError),
 * so node executions are wrapped to remember it, keyed by execution id.
 */
const thrownByExecution = new Map<string, Map<string, Error>>();

export function rememberThrownError(executionId: string, nodeName: string, error: unknown): void {
	if (error instanceof Error) thrownByExecution.set(executionId, takeThrownErrors(executionId).set(nodeName, error));
}

/** Returns and forgets what nodes threw during the given execution. */
export function takeThrownErrors(executionId: string): Map<string, Error> {
	const byNode = thrownByExecution.get(executionId) ?? new Map<string, Error>();
	thrownByExecution.delete(executionId);
	return byNode;
}
