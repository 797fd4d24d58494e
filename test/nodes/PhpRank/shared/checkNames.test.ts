import { checkNameOf } from '../../../../nodes/PhpRank/shared/checkNames';
import { PHPRANK_CHECKS } from '../../../support/phpRankChecks';

describe('check names', () => {
	it.each(PHPRANK_CHECKS.map(([id, title]) => [id, title]))('names %s as phpRank 1.5\'s report page does: %s', (id, title) => {
		expect(checkNameOf(id)).toBe(title);
	});

	it('makes the id of a check a newer phpRank adds readable', () => {
		expect(checkNameOf('some_new_check')).toBe('Some new check');
		expect(checkNameOf('doctype')).toBe('Doctype');
		expect(checkNameOf('minified')).toBe('Minified');
	});
});
