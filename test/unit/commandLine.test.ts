import { ConfigFormatError, parseArguments, parseEnvironment, parseHeaders } from '../../lib/mcp/commandLine';

/** The error a call throws; fails the test when it does not throw a ConfigFormatError. */
function errorOf(run: () => unknown): ConfigFormatError {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigFormatError);
		return error as ConfigFormatError;
	}
	throw new Error('expected a ConfigFormatError, nothing was thrown');
}

describe('parseArguments', () => {
	it('returns no arguments for empty or blank text', () => {
		expect(parseArguments('')).toEqual([]);
		expect(parseArguments('  \n\t ')).toEqual([]);
	});

	it('splits on any whitespace, newlines included', () => {
		expect(parseArguments('-y  @modelcontextprotocol/server-everything\tstdio')).toEqual(['-y', '@modelcontextprotocol/server-everything', 'stdio']);
		expect(parseArguments('--root\n/data/files\r\n--read-only\n')).toEqual(['--root', '/data/files', '--read-only']);
	});

	it('joins lines ended by a backslash, as a shell does (commands copied from a README), with LF or CRLF', () => {
		expect(parseArguments('-y \\\n@modelcontextprotocol/server-filesystem \\\n/data')).toEqual(['-y', '@modelcontextprotocol/server-filesystem', '/data']);
		expect(parseArguments('-y \\\r\n@pkg \\\r\n/data')).toEqual(['-y', '@pkg', '/data']);
		expect(parseArguments('--a=b\\\nc')).toEqual(['--a=bc']);
	});

	it('splits only on the separators a shell knows: a no-break space or a BOM stays in its word', () => {
		expect(parseArguments('--name=Jean\u00a0Dupont \ufeffx')).toEqual(['--name=Jean\u00a0Dupont', '\ufeffx']);
	});

	it('keeps quoted spaces together, in double and single quotes', () => {
		expect(parseArguments('--name "My Server" --dir \'/tmp/with space\'')).toEqual(['--name', 'My Server', '--dir', '/tmp/with space']);
		expect(parseArguments('--opt="a b"c')).toEqual(['--opt=a bc']);
	});

	it('keeps empty quoted arguments', () => {
		expect(parseArguments('"" x \'\'')).toEqual(['', 'x', '']);
	});

	it('treats a backslash as an escape outside single quotes only', () => {
		expect(parseArguments('a\\ b')).toEqual(['a b']);
		expect(parseArguments('"say \\"hi\\""')).toEqual(['say "hi"']);
		expect(parseArguments("'C:\\path\\to'")).toEqual(['C:\\path\\to']);
		expect(parseArguments('it\\\'s')).toEqual(["it's"]);
		expect(parseArguments('trailing\\')).toEqual(['trailing\\']);
	});

	it('keeps quote characters of the other kind literally', () => {
		expect(parseArguments('"it\'s" \'say "x"\'')).toEqual(["it's", 'say "x"']);
	});

	it('reports an unclosed quote with the field name', () => {
		expect(errorOf(() => parseArguments('--name "My Server')).message).toBe('Arguments: unclosed " quote');
		expect(errorOf(() => parseArguments("--x 'open", 'Args')).message).toBe("Args: unclosed ' quote");
	});

	it('accepts a JSON array of strings verbatim (no quote processing)', () => {
		expect(parseArguments('["-y", "pkg@1.2.3", "a b", "\\"quoted\\"", ""]')).toEqual(['-y', 'pkg@1.2.3', 'a b', '"quoted"', '']);
		expect(parseArguments('  []  ')).toEqual([]);
	});

	it('rejects malformed JSON arrays and non-string items', () => {
		expect(errorOf(() => parseArguments('["-y", "pkg"')).message).toBe('Arguments: starts with "[" but is not a valid JSON array');
		// The JSON parser's own message quotes the text around the mistake: here a key's value.
		expect(errorOf(() => parseArguments('["-y","srv","--api-key","sk-live-abcdef1234567890",]')).message).not.toContain('34567890');
		expect(errorOf(() => parseArguments('["-y", 3]')).message).toBe('Arguments: a JSON array must contain only strings');
		expect(errorOf(() => parseArguments('[["nested"]]')).message).toBe('Arguments: a JSON array must contain only strings');
	});
});

describe('parseEnvironment', () => {
	it('returns an empty object for empty text', () => {
		expect(parseEnvironment('')).toEqual({});
		expect(parseEnvironment('\n \n')).toEqual({});
	});

	it('reads NAME=value lines, skipping blanks and comments, value verbatim after the first =', () => {
		const text = ['# credentials', 'API_KEY=abc=def==', '', '  DEBUG=1  ', 'EMPTY=', 'URL=https://x.test/?a=b#c', '_under=score'].join('\r\n');
		expect(parseEnvironment(text)).toEqual({ API_KEY: 'abc=def==', DEBUG: '1', EMPTY: '', URL: 'https://x.test/?a=b#c', _under: 'score' });
	});

	it('takes "__proto__" as a variable name like any other, in both formats', () => {
		expect(parseEnvironment('__proto__=x\nA=1')).toEqual(Object.assign(Object.create(null), { ['__proto__']: 'x', A: '1' }) as Record<string, string>);
		const fromJson = parseEnvironment('{"__proto__":"x","A":"1"}');
		expect(Object.keys(fromJson).sort()).toEqual(['A', '__proto__']);
		expect(fromJson.A).toBe('1');
	});

	it('reads a JSON object of strings', () => {
		expect(parseEnvironment('{"API_KEY": "s3cret", "MODE": "a b"}')).toEqual({ API_KEY: 's3cret', MODE: 'a b' });
	});

	it('names the line of a malformed entry but never echoes it', () => {
		const secret = 'sk-live-0123456789abcdef';
		const error = errorOf(() => parseEnvironment(`GOOD=1\n${secret}`));
		expect(error.message).toBe('Environment Variables: line 2 must look like NAME=value');
		expect(error.message).not.toContain(secret);

		const leadingEq = errorOf(() => parseEnvironment(`=${secret}`));
		expect(leadingEq.message).toBe('Environment Variables: line 1 must look like NAME=value');
	});

	it('rejects invalid variable names without echoing the value', () => {
		const secret = 'hunter2-value';
		for (const line of [`1BAD=${secret}`, `BAD-NAME=${secret}`, `BAD NAME=${secret}`]) {
			const error = errorOf(() => parseEnvironment(`OK=1\n\n${line}`, 'Env'));
			expect(error.message).toBe('Env: line 3 has an invalid variable name (letters, digits and _ only)');
			expect(error.message).not.toContain(secret);
		}
	});

	it('rejects bad JSON without echoing any of it', () => {
		const secret = 'json-secret-9f8e';
		const invalid = errorOf(() => parseEnvironment(`{"TOKEN": "${secret}"`));
		expect(invalid.message).toBe('Environment Variables: starts with "{" but is not a valid JSON object');
		const nonString = errorOf(() => parseEnvironment(`{"PORT": 8080, "TOKEN": "${secret}"}`));
		expect(nonString.message).toBe('Environment Variables: the value of PORT must be a string');
		const nullValue = errorOf(() => parseEnvironment('{"TOKEN": null}'));
		expect(nullValue.message).toBe('Environment Variables: the value of TOKEN must be a string');
		const badName = errorOf(() => parseEnvironment(`{"BAD-NAME": "${secret}"}`));
		expect(badName.message).toBe('Environment Variables: entry 1 has an invalid variable name (letters, digits and _ only)');
		for (const error of [invalid, nonString, nullValue, badName]) expect(error.message).not.toContain(secret);
	});
});

describe('parseHeaders', () => {
	it('returns no headers for empty text', () => {
		expect(parseHeaders('  ')).toEqual({});
	});

	it('reads "Name: value" lines, splitting at the first colon and trimming', () => {
		expect(parseHeaders('Authorization: Bearer abc.def\n\nX-Upstream:  http://host:8080/path  \r\nX-Empty:')).toEqual({
			Authorization: 'Bearer abc.def',
			'X-Upstream': 'http://host:8080/path',
			'X-Empty': '',
		});
	});

	it('reads a JSON object', () => {
		expect(parseHeaders('{"X-Api-Key": "k1", "x-tenant": "t"}')).toEqual({ 'X-Api-Key': 'k1', 'x-tenant': 't' });
	});

	it('rejects malformed lines and names by line number without echoing values', () => {
		const secret = 'Bearer tok-5521';
		const noColon = errorOf(() => parseHeaders(`X-A: 1\n${secret}`));
		expect(noColon.message).toBe('Headers: line 2 must look like Name: value');
		const badName = errorOf(() => parseHeaders(`Bad Header: ${secret}`));
		expect(badName.message).toBe('Headers: line 1 has an invalid header name');
		const leadingColon = errorOf(() => parseHeaders(`: ${secret}`));
		expect(leadingColon.message).toBe('Headers: line 1 must look like Name: value');
		for (const error of [noColon, badName, leadingColon]) expect(error.message).not.toContain('tok-5521');
	});

	it('rejects JSON values that are not strings or contain line breaks, without echoing them', () => {
		const injected = errorOf(() => parseHeaders('{"X-Token": "abc\\r\\nX-Evil: injected-secret"}'));
		expect(injected.message).toBe('Headers: the value of header X-Token contains a line break');
		expect(injected.message).not.toContain('injected-secret');
		expect(errorOf(() => parseHeaders('{"X-Count": 3}')).message).toBe('Headers: the value of header X-Count must be a string');
		expect(errorOf(() => parseHeaders('{"Bad Name": "v"}')).message).toBe('Headers: entry 1 has an invalid header name');
		expect(errorOf(() => parseEnvironment('{"LOG": "x", "API_KEY=sk-live-abcdef1234567890": "x"}')).message).toBe('Environment Variables: entry 2 has an invalid variable name (letters, digits and _ only)');
		// A malformed name may hold the secret itself.
		expect(errorOf(() => parseHeaders('{"Accept": "x", "Authorization: Bearer sk-abcdef123456": ""}')).message).toBe('Headers: entry 2 has an invalid header name');
		const invalid = errorOf(() => parseHeaders('{"Authorization": "Bearer leaked-4411"'));
		expect(invalid.message).toBe('Headers: starts with "{" but is not a valid JSON object');
		expect(invalid.message).not.toContain('leaked-4411');
	});
});
