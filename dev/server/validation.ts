/** phpRank's validation rules, with the PHP/Laravel quirks that decide which messages appear. */
import { Input } from './incoming';

export type FieldErrors = Record<string, string[]>;

/** PHP's filter_var(FILTER_VALIDATE_INT): no fractions, no leading zeros. */
export function isPhpInteger(value: unknown): boolean {
	if (typeof value === 'number') return Number.isInteger(value);
	return typeof value === 'string' && /^\s*[+-]?(0|[1-9]\d*)\s*$/.test(value);
}

/** PHP's is_numeric(). */
export function isPhpNumeric(value: unknown): boolean {
	if (typeof value === 'number') return Number.isFinite(value);
	return typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value);
}

/** PHP truthiness, as `if ($request->input('results'))` applies it. */
export function isPhpTruthy(value: unknown): boolean {
	return !(value === null || value === undefined || value === false || value === 0 || value === '' || value === '0');
}

/**
 * Rules `integer|between:0,2`. Laravel runs both: a non-numeric value's size is its length,
 * so "abc" fails both rules while "ab" only fails the first.
 */
function privacyMessages(value: unknown): string[] {
	const messages: string[] = [];
	if (!isPhpInteger(value)) messages.push('The privacy must be an integer.');
	const size = isPhpNumeric(value) ? Number(value) : typeof value === 'string' ? [...value].length : Number.NaN;
	if (!(size >= 0 && size <= 2)) messages.push('The privacy must be between 0 and 2.');
	return messages;
}

/** Validation of privacy and password, shared by create and update. */
export function privacyErrors(input: Input): FieldErrors {
	const errors: FieldErrors = {};
	const privacy = input.privacy;
	if (privacy === null || privacy === undefined) return errors;
	const privacyProblems = privacyMessages(privacy);
	if (privacyProblems.length) errors.privacy = privacyProblems;
	// required_if:privacy,2 compares loosely, so "2", 2 and "02" all demand a password.
	if (isPhpNumeric(privacy) && Number(privacy) === 2 && (input.password === null || input.password === undefined)) {
		errors.password = ['The password field is required.'];
	}
	return errors;
}
