import type { IBinaryKeyData, IExecuteFunctions } from 'n8n-workflow';
import type { ExtractedBinary } from '../../lib/tools/callResult';

/** Binary contents split out of an MCP result, stored through n8n's binary data (undefined when none). */
export async function toBinaryData(context: IExecuteFunctions, binaries: ExtractedBinary[]): Promise<IBinaryKeyData | undefined> {
	if (binaries.length === 0) return undefined;
	const binary: IBinaryKeyData = {};
	for (const b of binaries) binary[b.key] = await context.helpers.prepareBinaryData(Buffer.from(b.base64, 'base64'), b.fileName, b.mimeType);
	return binary;
}
