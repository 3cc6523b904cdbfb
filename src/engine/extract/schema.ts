/**
 * JSON Schema checking with ajv: the user's schema against the meta-schema (before
 * any page is fetched), and the model's answers against the user's schema.
 *
 * The dialect follows the schema's `$schema`: 2020-12, 2019-09 or draft-07. A
 * schema without `$schema` is read as 2020-12, the dialect the Anthropic API uses
 * for tool input schemas; draft-07 schemas mostly read the same way.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { UsageError } from '../../api/errors.js';
import { checkSchemaDepth } from '../../api/validate.js';

export type JsonSchema = Record<string, unknown>;

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: AnyAjv) => AnyAjv;

const DIALECTS: Record<string, () => AnyAjv> = {
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020(AJV_OPTIONS),
  'https://json-schema.org/draft/2019-09/schema': () => new Ajv2019(AJV_OPTIONS),
  'http://json-schema.org/draft-07/schema': () => new Ajv(AJV_OPTIONS),
};

// strict: false because user schemas legitimately carry keywords ajv does not know
// (title-like annotations, vendor extensions); allErrors so the model and the user
// see every problem at once, not one per round trip.
const AJV_OPTIONS = { strict: false, allErrors: true, validateSchema: true } as const;

const DEFAULT_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

function ajvFor(schema: JsonSchema): AnyAjv {
  const declared = typeof schema.$schema === 'string' ? schema.$schema.replace(/#$/, '') : DEFAULT_DIALECT;
  const make = DIALECTS[declared];
  if (!make) {
    throw new UsageError(
      `schema: unsupported $schema "${String(schema.$schema)}" (supported: ${Object.keys(DIALECTS).join(', ')}; or leave $schema out for 2020-12)`,
    );
  }
  return addFormats(make());
}

/** One line per problem: "<path>: <message> (<detail>)". */
export function describeErrors(errors: ErrorObject[] | null | undefined, root = ''): string[] {
  const lines = (errors ?? [])
    // anyOf/oneOf only repeat their branches' errors, which are listed anyway.
    .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf')
    .map((e) => {
      const where = `${root}${e.instancePath}` || '/';
      const params = e.params as Record<string, unknown>;
      const detail =
        e.keyword === 'enum' ? ` (allowed: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`
        : e.keyword === 'additionalProperties' ? ` ("${String(params.additionalProperty)}")`
        : '';
      return `${where}: ${e.message ?? e.keyword}${detail}`;
    });
  return [...new Set(lines)];
}

export interface CheckedSchema {
  schema: JsonSchema;
  validate: ValidateFunction;
}

/**
 * Checks `schema` against its meta-schema and compiles it (which also catches
 * unresolvable $refs). Throws a UsageError naming the problem's place in the schema.
 */
export function checkSchema(schema: unknown, label = 'schema'): CheckedSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new UsageError(`${label} must be a JSON Schema object, e.g. {"type":"object","properties":{"title":{"type":"string"}}}`);
  }
  checkSchemaDepth(schema, label);
  const obj = schema as JsonSchema;
  const ajv = ajvFor(obj);
  if (!ajv.validateSchema(obj)) {
    const problems = describeErrors(ajv.errors, '').slice(0, 10);
    throw new UsageError(`${label} is not a valid JSON Schema: ${problems.join('; ')}`);
  }
  try {
    return { schema: obj, validate: ajv.compile(obj) };
  } catch (err) {
    throw new UsageError(`${label} is not a usable JSON Schema: ${(err as Error).message}`);
  }
}

/** Validates `value`; returns the problems, an empty list when it is valid. */
export function validationProblems(checked: CheckedSchema, value: unknown): string[] {
  return checked.validate(value) ? [] : describeErrors(checked.validate.errors);
}
