// Generates src/schema.ts (the API's types) from rankline's OpenAPI document, with
// openapi-typescript. The document comes from `rankline openapi` (the command named by
// $RANKLINE, else `rankline` on PATH), or from --from FILE|URL (a running server's
// http://host:port/openapi.json). With --check it writes nothing and exits 1 when the
// committed src/schema.ts differs from what the document generates.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const HEADER =
  "// Generated from rankline's OpenAPI document by `npm run generate`\n" +
  "// (scripts/generate.mjs, openapi-typescript). Do not edit by hand.\n\n";
const target = fileURLToPath(new URL("../src/schema.ts", import.meta.url));

function option(name) {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

async function documentText(source) {
  if (source === undefined) {
    const command = process.env.RANKLINE || "rankline";
    return execFileSync(command, ["openapi"], { encoding: "utf8", maxBuffer: 64 << 20 });
  }
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`${source}: ${response.status} ${response.statusText}`);
    return await response.text();
  }
  return readFileSync(source, "utf8");
}

const document = JSON.parse(await documentText(option("--from")));
const generated =
  HEADER +
  astToString(await openapiTS(document, { defaultNonNullable: false, emptyObjectsUnknown: true }));
if (process.argv.includes("--check")) {
  const committed = readFileSync(target, "utf8");
  if (committed !== generated) {
    console.error(
      "src/schema.ts is not what rankline's OpenAPI document generates: run `npm run generate` " +
        "and commit the result.",
    );
    process.exit(1);
  }
  console.log("src/schema.ts matches rankline's OpenAPI document");
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${target}`);
}
