import type { IHttpRequestOptions, INodePropertyOptions, NodeApiError } from 'n8n-workflow';

type Run = Extract<NonNullable<NonNullable<INodePropertyOptions['routing']>['operations']>['pagination'], (...args: never[]) => unknown>;

/**
 * The operation with its item's failure, under Continue On Fail, paired with the input item as n8n's own nodes
 * pair it: n8n's declarative engine outputs a failed item without that link, and nodes after the error output
 * could not read the row it came from. Its preSend steps run in here too, so that bad input is paired as well.
 */
export function pairingFailures(operation: INodePropertyOptions): INodePropertyOptions {
	const routing = operation.routing ?? {};
	const run = routing.operations?.pagination;
	if (typeof run !== 'function') return operation;
	const preSend = routing.send?.preSend ?? [];
	const paired: Run = async function (requestData) {
		const running = (async () => {
			let options = requestData.options as IHttpRequestOptions;
			for (const step of preSend) options = await step.call(this, options);
			return await run.call(this, { ...requestData, options });
		})();
		if (!this.continueOnFail()) return await running;
		return await running.catch((error: NodeApiError) => [{ json: {}, error, pairedItem: { item: this.getItemIndex() } }]);
	};
	return { ...operation, routing: { ...routing, send: { ...routing.send, preSend: [] }, operations: { ...routing.operations, pagination: paired } } };
}
