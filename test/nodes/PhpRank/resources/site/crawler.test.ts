/**
 * What Site > Audit's crawler reads of a page and of robots.txt, without a site: a page's links with their nofollow,
 * its title, description, first heading, canonical URL and robots directives (meta tag and X-Robots-Tag), whatever its
 * bytes; robots.txt's group for this crawler and its Crawl-delay.
 */
import { HEAD_CHARS, linkHeaderCanonicals, MAX_CRAWL_DELAY_SECONDS, readPage, Robots, TEXT_LENGTH, xRobotsTagDirectives } from '../../../../../nodes/PhpRank/resources/site/crawler';
import { CRAWLER_NAME, USER_AGENT } from '../../../../../nodes/PhpRank/resources/site/audit';

const PAGE = 'https://shop.example/blog/post.html';
const page = (head: string, body = '') => `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

describe('readPage: what a page says of itself', () => {
	it('the first title, description and h1, entities decoded and whitespace collapsed; null when none', () => {
		const { facts } = readPage(
			page(
				'<title>\n  Tea &amp; cakes &mdash;  the&#32;shop&#x21;\n</title><title>Second</title><META NAME="Description" CONTENT="  Fresh\ttea,\n daily &hellip; "><meta name="description" content="Second">',
				'<svg><title>Icon</title></svg><h1 class="x">Our <em>teas</em>\n&nbsp;today</h1><h1>Second</h1>',
			),
			PAGE,
		);

		expect(facts).toMatchObject({ title: 'Tea & cakes \u2014 the shop!', metaDescription: 'Fresh tea, daily \u2026', h1: 'Our teas today' });
		expect(readPage('<p>No head at all</p><svg><title>Icon</title></svg>', PAGE).facts).toEqual({
			title: null,
			metaDescription: null,
			h1: null,
			canonical: null,
			canonicalConflict: false,
			noindex: null,
			nofollow: false,
		});
		// Present but empty is not absent.
		expect(readPage(page('<title> </title><meta name="description" content="">'), PAGE).facts).toMatchObject({ title: '', metaDescription: '' });
	});

	it('a link\'s rel: nofollow in any case among other tokens is nofollow; ugc and sponsored are not', () => {
		const { links } = readPage(
			page(
				'',
				[
					'<a href="a.html">A</a>',
					'<a rel="nofollow" href="b.html">B</a>',
					'<a href="c.html" rel="external NoFollow">C</a>',
					'<a rel="ugc" href="d.html">D</a>',
					'<a rel="sponsored" href="e.html">E</a>',
					"<a rel='ugc sponsored' href='f.html'>F</a>",
					'<a rel="nofollowing" href="g.html">G</a>',
				].join('\n'),
			),
			PAGE,
		);

		expect(links.map((link) => [link.url.replace('https://shop.example/blog/', ''), link.nofollow])).toEqual([
			['a.html', false],
			['b.html', true],
			['c.html', true],
			['d.html', false],
			['e.html', false],
			['f.html', false],
			['g.html', false],
		]);
	});

	it.each([
		['<meta name="robots" content="noindex">', { noindex: 'meta robots', nofollow: false }],
		['<meta name="ROBOTS" content="NoIndex, Follow">', { noindex: 'meta robots', nofollow: false }],
		['<meta name="robots" content="index,nofollow">', { noindex: null, nofollow: true }],
		['<meta name="robots" content="none">', { noindex: 'meta robots', nofollow: true }],
		['<meta name="robots" content="max-snippet:-1"><meta name="robots" content="noindex">', { noindex: 'meta robots', nofollow: false }],
		// Another crawler's tag, and the description, say nothing to every robot.
		['<meta name="googlebot" content="noindex, nofollow"><meta name="description" content="noindex">', { noindex: null, nofollow: false }],
		[`<meta name="${CRAWLER_NAME}" content="noindex">`, { noindex: null, nofollow: false }],
	])('robots meta tag %s', (head, expected) => {
		expect(readPage(page(head), PAGE).facts).toMatchObject(expected);
	});

	it.each([
		['noindex', ['noindex']],
		['NOINDEX, NoFollow', ['noindex', 'nofollow']],
		['none', ['none']],
		// A crawler's name before a colon keeps what follows it to that crawler, up to the next name.
		['otherbot: noindex', []],
		['googlebot: noindex, nofollow', []],
		['noindex, OtherBot: nofollow', ['noindex']],
		// A directive with a value is no crawler's name.
		['unavailable_after: 25 Jun 2030 15:00:00 PST, nofollow', ['unavailable_after: 25 jun 2030 15:00:00 pst', 'nofollow']],
		['max-snippet: 20, noindex', ['max-snippet: 20', 'noindex']],
	])('X-Robots-Tag %j: the directives for every robot', (value, expected) => {
		expect(xRobotsTagDirectives(value)).toEqual(expected);
	});

	it('X-Robots-Tag and the meta tag together: noindex said by both, nofollow by the header', () => {
		const { facts } = readPage(page('<meta name="robots" content="noindex">'), PAGE, { xRobotsTag: 'noindex, nofollow' });

		expect(facts).toMatchObject({ noindex: 'meta robots and X-Robots-Tag', nofollow: true });
		expect(readPage(page(''), PAGE, { xRobotsTag: 'otherbot: noindex, nofollow' }).facts).toMatchObject({ noindex: null, nofollow: false });
	});

	it('the canonical URL: resolved against the page or its <base href>, without fragment; the first of several, their disagreement kept', () => {
		const canonical = (head: string, link?: string) => readPage(page(head), PAGE, { link }).facts;

		expect(canonical('<link rel="canonical" href="post.html#top">')).toMatchObject({ canonical: PAGE, canonicalConflict: false });
		expect(canonical('<base href="/shop/"><link href="tea.html" REL="Canonical">')).toMatchObject({ canonical: 'https://shop.example/shop/tea.html', canonicalConflict: false });
		expect(canonical('<link rel="canonical" href="/a.html"><link rel="canonical" href="/a.html"><link rel="canonical" href="https://shop.example/a.html#x">')).toMatchObject({
			canonical: 'https://shop.example/a.html',
			canonicalConflict: false,
		});
		expect(canonical('<link rel="canonical" href="/a.html"><link rel="canonical" href="/b.html">')).toMatchObject({ canonical: 'https://shop.example/a.html', canonicalConflict: true });
		// Another rel, or no usable address, is no canonical.
		expect(canonical('<link rel="alternate" href="/fr/"><link rel="canonical" href="mailto:x@y.example"><link rel="canonical">')).toMatchObject({ canonical: null, canonicalConflict: false });
		// The Link header's, when the HTML names none; a disagreement when it does.
		expect(canonical('', '<https://cdn.example/p.pdf>; rel="preload", </blog/post.html>; rel=canonical')).toMatchObject({ canonical: PAGE, canonicalConflict: false });
		expect(canonical('<link rel="canonical" href="/a.html">', '</b.html>; rel="canonical"')).toMatchObject({ canonical: 'https://shop.example/a.html', canonicalConflict: true });
		expect(linkHeaderCanonicals('<a.html>; rel="next", <b.html>; title="x"; rel="canonical alternate"', PAGE)).toEqual(['https://shop.example/blog/b.html']);
	});
});

describe('readPage: bad HTML gives what can be read, never an error', () => {
	it('unclosed tags: a title and a heading left open end at the next tag, a link at the next link; an unclosed comment hides what follows', () => {
		const html =
			'<html><head><title>Unclosed title<meta name="description" content="Kept">' +
			'<body><h1>Heading without end<p>Text <a href="/about.html">About <b>us' +
			'<a href=../docs/intro.html>Intro<div><a href="/x.html">X</a> <!-- never closed <a href="/hidden.html">Hidden</a>';

		const { links, facts } = readPage(html, PAGE);

		expect(facts).toMatchObject({ title: 'Unclosed title', metaDescription: 'Kept', h1: 'Heading without end' });
		expect(links.map((link) => [link.url, link.text])).toEqual([
			['https://shop.example/about.html', 'About us'],
			['https://shop.example/docs/intro.html', 'Intro'],
			['https://shop.example/x.html', 'X'],
		]);
	});

	it('an attribute whose quote never closes takes the rest of the page, as browsers read it, and its text is cut', () => {
		const html = `<title>T</title><meta name="description" content="${'word '.repeat(10_000)}`;

		const { links, facts } = readPage(html, PAGE);

		expect(links).toEqual([]);
		expect(facts.metaDescription).toHaveLength(TEXT_LENGTH);
		expect(facts.metaDescription?.endsWith('\u2026')).toBe(true);
	});

	it('ten canonical links: the first, and their disagreement', () => {
		const head = Array.from({ length: 10 }, (_, n) => `<link rel="canonical" href="${n === 0 ? PAGE : `/v${n}.html`}">`).join('\n');

		expect(readPage(page(head), PAGE).facts).toMatchObject({ canonical: PAGE, canonicalConflict: true });
	});

	it('a 5 MB page with a script on every line: its links from the whole page, its head read from the start', () => {
		const filler = '<p>Filler text, as long pages have it.</p><script>var x = "<a href=/not-a-link.html>";</script>\n';
		const body = filler.repeat(Math.ceil((5 * 1024 * 1024) / filler.length));
		// A robots meta tag this far down is no longer its head's.
		const html = page('<title>Huge</title>', `<a href="/first.html">First</a>${body}<meta name="robots" content="noindex"><a href="/last.html">Last</a>`);
		expect(html.length).toBeGreaterThan(HEAD_CHARS * 5);

		const { links, facts } = readPage(html, PAGE);

		expect(links.map((link) => link.url)).toEqual(['https://shop.example/first.html', 'https://shop.example/last.html']);
		expect(facts).toMatchObject({ title: 'Huge', noindex: null });
	});

	it('binary bytes served as HTML: some facts or none, and no error', () => {
		let seed = 7;
		const bytes = Buffer.from(Uint8Array.from({ length: 256 * 1024 }, () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16));
		const html = `${bytes.toString('utf8')}<title>After the bytes</title>${bytes.toString('latin1')}`;

		const { facts } = readPage(html, PAGE);

		expect(facts.canonicalConflict).toBe(false);
		expect(typeof facts.nofollow).toBe('boolean');
	});
});

describe('robots.txt: the group for this crawler, else for every crawler, and its Crawl-delay', () => {
	const rules = (text: string) => Robots.parse(text, CRAWLER_NAME)!;
	const allowed = (robots: Robots, path: string) => robots.allows(new URL(path, 'https://shop.example'));

	it('names the crawler as its User-Agent does', () => {
		expect(USER_AGENT).toContain(`(compatible; ${CRAWLER_NAME};`);
	});

	it('Crawl-delay of the group for every crawler, in seconds, fractions allowed; none, 0 or not a number: null', () => {
		expect(rules('User-agent: *\nCrawl-delay: 2\nDisallow: /private/').crawlDelaySeconds).toBe(2);
		expect(rules('User-agent: *\ncrawl-delay:0.25').crawlDelaySeconds).toBe(0.25);
		expect(rules('User-agent: *\nCrawl-delay: .5').crawlDelaySeconds).toBe(0.5);
		expect(rules('User-agent: *\nDisallow: /private/').crawlDelaySeconds).toBeNull();
		expect(rules('User-agent: *\nCrawl-delay: 0').crawlDelaySeconds).toBeNull();
		expect(rules('User-agent: *\nCrawl-delay: soon').crawlDelaySeconds).toBeNull();
		expect(rules('User-agent: *\nCrawl-delay: -3').crawlDelaySeconds).toBeNull();
		// Another crawler's delay is not this one's.
		expect(rules('User-agent: OtherBot\nCrawl-delay: 5\n\nUser-agent: *\nDisallow:').crawlDelaySeconds).toBeNull();
		// The first of the group's lines counts.
		expect(rules('User-agent: *\nCrawl-delay: 1\nCrawl-delay: 3').crawlDelaySeconds).toBe(1);
	});

	it(`a Crawl-delay above ${MAX_CRAWL_DELAY_SECONDS} s is kept to ${MAX_CRAWL_DELAY_SECONDS} s`, () => {
		expect(rules('User-agent: *\nCrawl-delay: 60').crawlDelaySeconds).toBe(MAX_CRAWL_DELAY_SECONDS);
	});

	it(`a group naming ${CRAWLER_NAME} (in any case) is the only one that applies: its rules and its Crawl-delay`, () => {
		const robots = rules(`User-agent: *\nDisallow: /private/\nCrawl-delay: 5\n\nUser-agent: ${CRAWLER_NAME.toUpperCase()}\nDisallow: /drafts/\nCrawl-delay: 1.5\n`);

		expect(robots.agent).toBe(CRAWLER_NAME);
		expect(robots.crawlDelaySeconds).toBe(1.5);
		expect(allowed(robots, '/drafts/a.html')).toBe(false);
		expect(allowed(robots, '/private/a.html')).toBe(true);
	});

	it('without one, the groups for every crawler combined; a group of several User-agent lines is each one\'s', () => {
		const robots = rules('User-agent: OtherBot\nUser-agent: *\nDisallow: /a/\n\nUser-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /b/\nCrawl-delay: 0.2\n');

		expect(robots.agent).toBe('*');
		expect(robots.crawlDelaySeconds).toBe(0.2);
		expect([allowed(robots, '/a/x'), allowed(robots, '/b/x'), allowed(robots, '/c/x')]).toEqual([false, false, true]);
	});
});
