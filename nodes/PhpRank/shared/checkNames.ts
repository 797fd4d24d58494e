/**
 * The titles phpRank 1.5's report page (in English) gives its 33 checks, by the check's id in a report's `results`:
 * the words a person reads in a message, where the ids are what a workflow compares.
 */
const CHECK_TITLES = new Map<string, string>([
	['title', 'Title'],
	['meta_description', 'Meta description'],
	['headings', 'Headings'],
	['content_keywords', 'Content keywords'],
	['image_keywords', 'Image keywords'],
	['seo_friendly_url', 'SEO friendly URL'],
	['404_page', '404 page'],
	['robots', 'Robots.txt'],
	['noindex', 'Noindex'],
	['in_page_links', 'In-page links'],
	['language', 'Language'],
	['favicon', 'Favicon'],
	['text_compression', 'Text compression'],
	['load_time', 'Load time'],
	['page_size', 'Page size'],
	['http_requests', 'HTTP requests'],
	['image_format', 'Image format'],
	['defer_javascript', 'JavaScript defer'],
	['dom_size', 'DOM size'],
	['https_encryption', 'HTTPS encryption'],
	['mixed_content', 'Mixed content'],
	['server_signature', 'Server signature'],
	['unsafe_cross_origin_links', 'Unsafe cross-origin links'],
	['plaintext_email', 'Plaintext email'],
	['structured_data', 'Structured data'],
	['meta_viewport', 'Meta viewport'],
	['charset', 'Character set'],
	['sitemap', 'Sitemap'],
	['social', 'Social'],
	['content_length', 'Content length'],
	['text_html_ratio', 'Text to HTML ratio'],
	['inline_css', 'Inline CSS'],
	['deprecated_html_tags', 'Deprecated HTML'],
]);

/** A check's title; a check a newer phpRank added gets its id made readable ("some_new_check" → "Some new check"). */
export function checkNameOf(id: string): string {
	const title = CHECK_TITLES.get(id);
	if (title !== undefined) return title;
	const words = id.replace(/_/g, ' ');
	return words.charAt(0).toUpperCase() + words.slice(1);
}
