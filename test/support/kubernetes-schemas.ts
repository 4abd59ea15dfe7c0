import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { load } from 'js-yaml';

/*
 * Kubernetes objects checked as the API server checks them, offline: built-in kinds against Kubernetes'
 * own OpenAPI document (api/openapi-spec/swagger.json of k8s.io/kubernetes), custom kinds against their
 * CRDs' openAPIV3Schema. Like `kubectl apply` (server-side field validation, Strict) and kubeconform
 * -strict, a field a schema does not name is an error: every object schema that lists its properties
 * gets `additionalProperties: false` unless it preserves unknown fields. The CEL rules of the CRDs
 * (x-kubernetes-validations) are not evaluated here; the chart's test checks the few that concern it.
 */
type Schema = Record<string, unknown>;
const OBJECT_META = 'k8s#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const INT_OR_STRING = { anyOf: [{ type: 'string' }, { type: 'integer' }] };

/** Walks a schema and makes it strict, in place, as described above. */
function strict(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(strict);
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  if (schema['x-kubernetes-int-or-string'] === true) {
    delete schema.type;
    Object.assign(schema, INT_OR_STRING);
  }
  if (schema.nullable === true && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  if (schema.properties && !('additionalProperties' in schema) && schema['x-kubernetes-preserve-unknown-fields'] !== true) schema.additionalProperties = false;
  Object.values(schema).forEach(strict);
}

function kubernetesDefinitions(swaggerPath: string): { definitions: Record<string, Schema>; kinds: Map<string, string> } {
  const { definitions } = JSON.parse(readFileSync(swaggerPath, 'utf8')) as { definitions: Record<string, Schema> };
  // Written as strings in the OpenAPI document; the API server takes numbers for both.
  definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] = INT_OR_STRING;
  definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'] = { anyOf: [{ type: 'string' }, { type: 'number' }] };
  const kinds = new Map<string, string>();
  for (const [name, definition] of Object.entries(definitions)) {
    for (const gvk of (definition['x-kubernetes-group-version-kind'] ?? []) as { group: string; version: string; kind: string }[]) {
      kinds.set(`${gvk.group ? `${gvk.group}/` : ''}${gvk.version} ${gvk.kind}`, `k8s#/definitions/${name}`);
    }
  }
  strict(definitions);
  return { definitions, kinds };
}

interface Crd {
  spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
}

/** Each CRD version's schema, its metadata checked as ObjectMeta (the API server checks it so). */
function crdSchemas(dir: string): Map<string, Schema> {
  const schemas = new Map<string, Schema>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.yaml'))) {
    const crd = load(readFileSync(join(dir, file), 'utf8')) as Crd;
    for (const version of crd.spec.versions) {
      const schema = structuredClone(version.schema.openAPIV3Schema);
      strict(schema);
      (schema.properties as Schema).metadata = { $ref: OBJECT_META };
      schemas.set(`${crd.spec.group}/${version.name} ${crd.spec.names.kind}`, schema);
    }
  }
  return schemas;
}

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** A validator of objects of every kind the schemas under `schemasDir` describe (src/stack/helm-tools.ts). */
export function kubernetesValidator(schemasDir: string): (object: KubernetesObject) => string[] {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const { definitions, kinds } = kubernetesDefinitions(join(schemasDir, 'kubernetes', 'swagger.json'));
  ajv.addSchema({ $id: 'k8s', definitions });
  const crds = new Map([...crdSchemas(join(schemasDir, 'temporal-worker-controller')), ...crdSchemas(join(schemasDir, 'keda'))]);
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (key: string): ValidateFunction | undefined => {
    if (!compiled.has(key)) {
      const ref = kinds.get(key);
      const schema = ref ? { $ref: ref } : crds.get(key);
      if (!schema) return undefined;
      compiled.set(key, ajv.compile(schema));
    }
    return compiled.get(key);
  };
  return (object) => {
    const key = `${object.apiVersion} ${object.kind} ${object.metadata?.name}`;
    const validate = validatorOf(`${object.apiVersion} ${object.kind}`);
    if (!validate) return [`${key}: no schema for this kind (neither Kubernetes nor a known CRD)`];
    if (validate(object)) return namesProblems(object);
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : ''}`);
  };
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** What the API server checks beyond the schema and this chart's objects could get wrong: names and label values. */
function namesProblems(object: KubernetesObject): string[] {
  const problems: string[] = [];
  const name = object.metadata.name ?? '';
  if (name.length > 63 || !DNS_LABEL.test(name)) problems.push(`${object.kind} ${name}: the name is not a DNS label of at most 63 characters`);
  for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
    if (value.length > 63 || !LABEL_VALUE.test(value)) problems.push(`${object.kind} ${name}: label ${key}=${value} is not a valid label value`);
  }
  return problems;
}
