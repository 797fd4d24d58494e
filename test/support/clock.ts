import { setTimeout as realSleep, setImmediate as nextTurn } from 'node:timers/promises';

// What the process holds while it waits for nothing but timers: the servers' listening sockets, jest's pipes and
// real timers (jest's own, a test's), and whatever else it held before the file's first test (another Node.js may
// name its handles differently). Anything else (a connection, a file read, an immediate) is work under way.
const AT_REST = ['Timeout', 'TCPServerWrap', 'PipeWrap', 'TTYWrap', 'SignalWrap', 'ProcessWrap'];
const NEVER_AT_REST = new Set(['TCPSocketWrap', 'TCPConnectWrap', 'ConnectWrap', 'GetAddrInfoReqWrap', 'Immediate']);

/**
 * A clock the test file controls, for the node's own waits (a read sent again after a pause, a server that is down
 * probed, Max Wait spent): `Date` and the timers of the file's module world (n8n's `sleep` included) are jest's
 * fake ones. The clock stands still while anything is under way (a request, its answer, the engine's work) and,
 * once nothing is, jumps to the next timer: a test waits as long as the node works, not as long as it waits, and
 * no outcome depends on how fast the machine is.
 *
 * For a whole file: what the node learnt of a server is kept between tests by these times, and they only go
 * forward. Not for tests whose server times something with these timers (a proxy's timeout): it would never come
 * while the request it cuts off is open. Real timers (`node:timers`, sockets' timeouts, the server's delays) are
 * untouched. An open connection counts as work under way even when idle: the bundled server closes each one
 * after its answer, so a test here that hangs until its timeout points at a connection left open.
 */
export function useTestClock(): void {
	let driving: Promise<void> | undefined;
	let stopped = false;
	let atRest = new Set(AT_REST);
	const underWay = () => process.getActiveResourcesInfo().some((resource) => !atRest.has(resource));
	beforeAll(() => {
		atRest = new Set([...AT_REST, ...process.getActiveResourcesInfo().filter((resource) => !NEVER_AT_REST.has(resource))]);
		jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'hrtime', 'performance'] });
		driving = drive();
	});
	afterAll(async () => {
		stopped = true;
		await driving;
		jest.useRealTimers();
	});

	async function drive(): Promise<void> {
		while (!stopped) {
			if (jest.getTimerCount() === 0 || underWay()) {
				await realSleep(1);
				continue;
			}
			// A turn of the event loop more: what was about to start (a socket, an immediate) shows.
			await nextTurn();
			if (!underWay()) await jest.advanceTimersToNextTimerAsync();
		}
	}
}
