// Generates gen/schema.d.ts from an OpenAPI document with openapi-typescript's
// Node API, as its documentation shows for file uploads: a schema of
// format "binary" (an uploaded file's part) becomes Blob, which FormData
// takes, where the CLI would make it a string.
//
//	node gen.mjs path/to/openapi.json gen/schema.d.ts
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import openapiTS, { astToString } from "openapi-typescript";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
	console.error("usage: node gen.mjs OPENAPI_JSON OUTPUT_D_TS");
	process.exit(2);
}
const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"));
const ast = await openapiTS(pathToFileURL(path.resolve(input)), {
	transform(schema) {
		if (schema.format === "binary") {
			return blob;
		}
		return undefined;
	},
});
fs.mkdirSync(path.dirname(output), { recursive: true });
fs.writeFileSync(output, astToString(ast));
