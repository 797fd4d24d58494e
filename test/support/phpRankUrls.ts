/**
 * URLs as sent to phpRank 1.5's API and as it stores them (CONTRACT.md, "A report"), after `host:port`; `undefined`:
 * refused with 422 "The url format is invalid.". Written out here so that the server and the node are held to
 * phpRank's, not to each other.
 */
export const PHPRANK_URL_SHAPES: ReadonlyArray<readonly [sent: string, stored: string | undefined]> = [
	["/?who=it's", "/?who=it's"],
	['/?who=they%27re', '/?who=they%27re'],
	['/?q[]=x', '/?q%5B%5D=x'],
	['/?q=café', '/?q=caf%C3%A9'],
	// Lower case: another string than %C3%A9, so another report.
	['/?q=caf%c3%a9', '/?q=caf%c3%a9'],
	['/?q=a%20b', '/?q=a%20b'],
	['/?q=a+b', '/?q=a+b'],
	['/blog/../about.html', '/about.html'],
	['//about.html', '//about.html'],
	['/page#part', '/page'],
	['/?a=1&empty=', '/?a=1&empty='],
	['/?q=a b', undefined],
	['/?q=a|b', undefined],
	['/?q=a^b', undefined],
	['/?q="a"', undefined],
	['/?q=<a>', undefined],
];

/** `HTTP://HOST/…`: phpRank stores scheme and host in lower case, the path as sent. */
export const UPPER_CASE_SHAPE = { sent: (host: string) => `HTTP://${host.toUpperCase()}/About`, stored: (host: string) => `${host}/About` };
