import { createNameMatcher, globToRegExp, parsePatternList } from '../../lib/tools/nameFilter';

describe('globToRegExp', () => {
	it('anchors the whole name, * matches any run (also empty), ? exactly one character', () => {
		const star = globToRegExp('get_*');
		expect(['get_', 'get_user', 'get_user.email'].filter((n) => star.test(n))).toEqual(['get_', 'get_user', 'get_user.email']);
		expect(['xget_user', 'get', 'Get_user'].some((n) => star.test(n))).toBe(false);
		const question = globToRegExp('file?');
		expect(question.test('files')).toBe(true);
		expect(question.test('file')).toBe(false);
		expect(question.test('filess')).toBe(false);
	});

	it('treats regular-expression characters literally', () => {
		expect(globToRegExp('files.read').test('files.read')).toBe(true);
		expect(globToRegExp('files.read').test('filesXread')).toBe(false);
		expect(globToRegExp('a+b').test('a+b')).toBe(true);
		expect(globToRegExp('a+b').test('aab')).toBe(false);
		expect(globToRegExp('(x)|[y]{2}$^\\').test('(x)|[y]{2}$^\\')).toBe(true);
		expect(globToRegExp('x|y').test('x')).toBe(false);
	});

	it('is case-sensitive', () => {
		expect(globToRegExp('Echo').test('echo')).toBe(false);
	});

	it('lets * and ? match line breaks and astral characters, so "*" in Exclude excludes every name', () => {
		expect(globToRegExp('*').test('read\nfile')).toBe(true);
		expect(globToRegExp('read?file').test('read\u2028file')).toBe(true);
		expect(globToRegExp('x?').test('x\u{1F600}')).toBe(true);
		expect(createNameMatcher({ exclude: ['*'] })('evil\ntool')).toBe(false);
		expect(createNameMatcher({ exclude: ['evil*'] })('evil\r\ntool')).toBe(false);
	});

	it('stays fast on patterns with many stars', () => {
		const started = Date.now();
		globToRegExp(`${'*'.repeat(40)}x`).test('a'.repeat(5000));
		expect(Date.now() - started).toBeLessThan(200);
	});
});

describe('parsePatternList', () => {
	it('splits on commas and newlines, trims and drops empties', () => {
		expect(parsePatternList(' a, b* \n c,,\n\n')).toEqual(['a', 'b*', 'c']);
	});

	it('accepts arrays and nothing', () => {
		expect(parsePatternList([' x ', '', 'y*'])).toEqual(['x', 'y*']);
		expect(parsePatternList(undefined)).toEqual([]);
		expect(parsePatternList('')).toEqual([]);
	});
});

describe('createNameMatcher', () => {
	const names = ['read_file', 'write_file', 'delete_file', 'list_dir', 'admin.reset'];
	const pick = (filter: Parameters<typeof createNameMatcher>[0]) => names.filter(createNameMatcher(filter));

	it('matches everything without patterns', () => {
		expect(pick({})).toEqual(names);
		expect(pick({ include: [], exclude: [] })).toEqual(names);
	});

	it('keeps only included names', () => {
		expect(pick({ include: ['*_file'] })).toEqual(['read_file', 'write_file', 'delete_file']);
		expect(pick({ include: ['list_dir', 'admin.*'] })).toEqual(['list_dir', 'admin.reset']);
	});

	it('drops excluded names, and exclude wins over include', () => {
		expect(pick({ exclude: ['delete_*', 'admin.*'] })).toEqual(['read_file', 'write_file', 'list_dir']);
		expect(pick({ include: ['*_file'], exclude: ['delete_file'] })).toEqual(['read_file', 'write_file']);
		expect(pick({ include: ['read_file'], exclude: ['*'] })).toEqual([]);
	});
});
