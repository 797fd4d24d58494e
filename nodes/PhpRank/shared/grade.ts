import type { INodePropertyOptions } from 'n8n-workflow';

type Grade = 'good' | 'decent' | 'bad';

export const GRADE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Good', value: 'good', description: 'Score above 79' },
	{ name: 'Decent', value: 'decent', description: 'Score from 49 to 79' },
	{ name: 'Bad', value: 'bad', description: 'Score below 49' },
];

// phpRank's own thresholds, the ones its `result` list filter applies.
export function gradeOf(score: number): Grade {
	if (score > 79) return 'good';
	if (score >= 49) return 'decent';
	return 'bad';
}

/**
 * The score as phpRank stores it. Answers to create and re-analysis carry the unrounded score
 * (68.57142857142857), every later read the stored whole number (69).
 */
export function storedScore(score: number): number {
	return Math.round(score);
}
