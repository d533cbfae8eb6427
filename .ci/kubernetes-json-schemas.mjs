// Writes the JSON schemas kubeconform validates against, one per kind, from the OpenAPI (v2)
// document of the Kubernetes API (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module).
// kubeconform embeds no schemas and by default downloads them from GitHub, which CI cannot reach.
//
//   node .ci/kubernetes-json-schemas.mjs <swagger.json> <output dir> <group/version>...
//
// Each schema is standalone (every $ref inlined) and strict (an object with `properties` allows
// nothing else, as `kubectl --validate=strict` does), named as kubeconform looks for it:
// `{{ .ResourceKind }}{{ .KindSuffix }}.json`, e.g. deployment-apps-v1.json, service-v1.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const [swaggerFile, outDir, ...groupVersions] = process.argv.slice(2);
if (!swaggerFile || !outDir || groupVersions.length === 0) {
  process.stderr.write('usage: node .ci/kubernetes-json-schemas.mjs <swagger.json> <output dir> <group/version>...\n');
  process.exit(2);
}
const { definitions } = JSON.parse(readFileSync(swaggerFile, 'utf8'));

// What the document writes as a bare string accepts a number too in YAML (`port: 8080`, `cpu: 1`).
const OVERRIDES = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

/** The definition with its $refs inlined; a definition that contains itself (JSONSchemaProps) is left open where it recurs. */
function inline(node, stack) {
  if (Array.isArray(node)) return node.map((item) => inline(item, stack));
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace('#/definitions/', '');
    if (OVERRIDES[name]) return OVERRIDES[name];
    if (stack.includes(name)) return {};
    const target = definitions[name];
    if (!target) throw new Error(`unresolvable $ref ${node.$ref}`);
    return inline(target, [...stack, name]);
  }
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    // Vendor extensions and OpenAPI formats (int32, int64, byte) are no JSON Schema assertions.
    if (key.startsWith('x-') || key === 'format') continue;
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v, stack)])) : inline(value, stack);
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

mkdirSync(outDir, { recursive: true });
let written = 0;
for (const [name, definition] of Object.entries(definitions)) {
  for (const { group, version, kind } of definition['x-kubernetes-group-version-kind'] ?? []) {
    const apiVersion = group ? `${group}/${version}` : version;
    if (!groupVersions.includes(apiVersion)) continue;
    // kubeconform's KindSuffix: "-" + the first label of the group (or the version for the core group), then "-" + the version.
    const suffix = group ? `-${group.split('.')[0]}-${version}` : `-${version}`;
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...inline(definition, [name]) };
    writeFileSync(path.join(outDir, `${kind.toLowerCase()}${suffix.toLowerCase()}.json`), JSON.stringify(schema));
    written += 1;
  }
}
if (written === 0) throw new Error(`no kind of ${groupVersions.join(', ')} in ${swaggerFile}`);
process.stdout.write(`${written} schemas written to ${outDir}\n`);
