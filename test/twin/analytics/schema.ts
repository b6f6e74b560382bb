// The twin's GraphQL schema: Cloudflare's root (`viewer.accounts(filter: { accountTag })`) and the
// datasets of datasets.ts with Cloudflare's type names (`Account<Dataset>Filter_InputObject`,
// `…Dimensions`, `…Sum`, `…Max`, `…Quantiles`). Written as SDL from the dataset list and built by
// graphql-js, so a query naming a field the twin's Cloudflare lacks is refused as the real API refuses
// it, before anything runs.
import { buildSchema, type GraphQLSchema } from 'graphql';
import { DATASETS, type Dataset, TIME_DIMENSION_TYPES, typePrefix } from './datasets.ts';

/** Rows a dataset answers at most (the real limit is per dataset and account; this is a stand-in). */
export const MAX_LIMIT = 10_000;

const FILTER_OPERATORS = ['', '_gt', '_geq', '_lt', '_leq', '_neq'];

function dimensionsOf(dataset: Dataset): Record<string, string> {
  return { ...TIME_DIMENSION_TYPES, ...dataset.dimensions };
}

function filterInput(dataset: Dataset): string {
  const name = `${typePrefix(dataset)}Filter_InputObject`;
  const fields = Object.entries(dimensionsOf(dataset)).flatMap(([field, type]) => [
    ...FILTER_OPERATORS.map((operator) => `${field}${operator}: ${type}`),
    `${field}_in: [${type}!]`,
  ]);
  return `input ${name} {\n  ${[...fields, `AND: [${name}!]`, `OR: [${name}!]`].join('\n  ')}\n}`;
}

function orderByEnum(dataset: Dataset): string {
  const values = [
    ...Object.keys(dimensionsOf(dataset)),
    ...dataset.sum.map((field) => `sum_${field}`),
    ...dataset.max.map((field) => `max_${field}`),
    'count',
  ].flatMap((value) => [`${value}_ASC`, `${value}_DESC`]);
  return `enum ${typePrefix(dataset)}OrderBy {\n  ${values.join('\n  ')}\n}`;
}

function objectType(name: string, fields: readonly string[], type: string): string {
  return fields.length === 0
    ? ''
    : `type ${name} {\n  ${fields.map((field) => `${field}: ${type}`).join('\n  ')}\n}`;
}

function datasetTypes(dataset: Dataset): string {
  const prefix = typePrefix(dataset);
  const dimensions = Object.entries(dimensionsOf(dataset)).map(([field, type]) => `${field}: ${type}!`);
  const parts = [
    `type ${prefix}Dimensions {\n  ${dimensions.join('\n  ')}\n}`,
    objectType(`${prefix}Sum`, dataset.sum, 'float64!'),
    objectType(`${prefix}Max`, dataset.max, 'float64!'),
    objectType(`${prefix}Quantiles`, Object.keys(dataset.quantiles), 'float64'),
    filterInput(dataset),
    orderByEnum(dataset),
  ];
  const fields = [
    'count: uint64!',
    `dimensions: ${prefix}Dimensions`,
    dataset.sum.length > 0 ? `sum: ${prefix}Sum` : '',
    dataset.max.length > 0 ? `max: ${prefix}Max` : '',
    Object.keys(dataset.quantiles).length > 0 ? `quantiles: ${prefix}Quantiles` : '',
  ].filter(Boolean);
  parts.push(`type ${prefix} {\n  ${fields.join('\n  ')}\n}`);
  return parts.filter(Boolean).join('\n\n');
}

function accountField(dataset: Dataset): string {
  const prefix = typePrefix(dataset);
  return `${dataset.name}(limit: uint64!, filter: ${prefix}Filter_InputObject, orderBy: [${prefix}OrderBy!]): [${prefix}!]!`;
}

export const ANALYTICS_SDL = `
scalar string
scalar Time
scalar Date
scalar uint64
scalar float64

type Query {
  viewer: viewer
  cost: uint64
}

type viewer {
  accounts(filter: AccountFilter_InputObject!): [account!]!
  budget: uint64
}

input AccountFilter_InputObject {
  accountTag: string
  accountTag_gt: string
  accountTag_in: [string!]
}

type account {
  ${DATASETS.map(accountField).join('\n  ')}
}

${DATASETS.map(datasetTypes).join('\n\n')}
`;

export const analyticsSchema: GraphQLSchema = buildSchema(ANALYTICS_SDL);
