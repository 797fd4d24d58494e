/**
 * phpRank 1.5's checks as its report page shows them (CONTRACT.md, "The checks"), written out here so that the
 * server's analysis and the node's titles are held to phpRank's, not to each other: id, title, importance, category.
 */
export const PHPRANK_CHECKS: ReadonlyArray<readonly [id: string, title: string, importance: 'high' | 'medium' | 'low', category: string]> = [
	['title', 'Title', 'high', 'seo'],
	['meta_description', 'Meta description', 'high', 'seo'],
	['headings', 'Headings', 'high', 'seo'],
	['content_keywords', 'Content keywords', 'high', 'seo'],
	['image_keywords', 'Image keywords', 'high', 'seo'],
	['seo_friendly_url', 'SEO friendly URL', 'high', 'seo'],
	['404_page', '404 page', 'high', 'seo'],
	['robots', 'Robots.txt', 'high', 'seo'],
	['noindex', 'Noindex', 'high', 'seo'],
	['in_page_links', 'In-page links', 'medium', 'seo'],
	['language', 'Language', 'medium', 'seo'],
	['favicon', 'Favicon', 'medium', 'seo'],
	['text_compression', 'Text compression', 'high', 'performance'],
	['load_time', 'Load time', 'medium', 'performance'],
	['page_size', 'Page size', 'medium', 'performance'],
	['http_requests', 'HTTP requests', 'medium', 'performance'],
	['image_format', 'Image format', 'medium', 'performance'],
	['defer_javascript', 'JavaScript defer', 'low', 'performance'],
	['dom_size', 'DOM size', 'low', 'performance'],
	['https_encryption', 'HTTPS encryption', 'high', 'security'],
	['mixed_content', 'Mixed content', 'medium', 'security'],
	['server_signature', 'Server signature', 'medium', 'security'],
	['unsafe_cross_origin_links', 'Unsafe cross-origin links', 'medium', 'security'],
	['plaintext_email', 'Plaintext email', 'low', 'security'],
	['structured_data', 'Structured data', 'medium', 'miscellaneous'],
	['meta_viewport', 'Meta viewport', 'medium', 'miscellaneous'],
	['charset', 'Character set', 'medium', 'miscellaneous'],
	['sitemap', 'Sitemap', 'low', 'miscellaneous'],
	['social', 'Social', 'low', 'miscellaneous'],
	['content_length', 'Content length', 'low', 'miscellaneous'],
	['text_html_ratio', 'Text to HTML ratio', 'low', 'miscellaneous'],
	['inline_css', 'Inline CSS', 'low', 'miscellaneous'],
	['deprecated_html_tags', 'Deprecated HTML', 'low', 'miscellaneous'],
];

/** phpRank's default points per importance (operator settings report_score_high|medium|low). */
export const PHPRANK_POINTS = { high: 10, medium: 5, low: 0 } as const;

/** The titles by check id, as a workflow's table of them holds them. */
export const PHPRANK_CHECK_TITLES: Record<string, string> = Object.fromEntries(PHPRANK_CHECKS.map(([id, title]) => [id, title]));
