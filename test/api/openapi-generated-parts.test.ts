import { z } from 'zod';
import { queryParameters } from '../../src/api/openapi/from-zod';
import { operationOf } from '../../src/api/openapi/operation';
import { ResourceId } from '../../src/use-cases/input/contract';
import { badParameters, notFound, operations } from '../../src/use-cases/input/operation-docs';
import { resourceId } from '../../src/use-cases/input/validation';

/*
 * The parts of the document written from a route's parser and its feature's operations.ts: what a reader of a
 * parameter or a response sees comes from there, and a route's parser and its description cannot tell apart.
 */

describe('query parameters from the parser\'s zod schema', () => {
  const query = z.object({
    client: resourceId.optional().meta({ description: 'Only this client\'s.', examples: ['c7'] }),
    status: z.enum(['active', 'all']).default('active'),
    cursor: z.string().max(200).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
    day: z.string(),
  });

  test('each field is a parameter in the schema\'s order, its prose the parameter\'s and not its schema\'s', () => {
    expect(queryParameters(query)).toEqual([
      { name: 'client', in: 'query', required: false, description: 'Only this client\'s.', schema: { $ref: '#/components/schemas/ResourceId' }, example: 'c7' },
      { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['active', 'all'], default: 'active' } },
      { name: 'cursor', in: 'query', required: false, description: 'The `next_cursor` of the previous page.', schema: { type: 'string', maxLength: 200 } },
      { name: 'day', in: 'query', required: true, schema: { type: 'string' } },
    ]);
  });

  test('a parser with texts of its own is written as the shared schema it reads as, and only that one', () => {
    const [viaParser] = queryParameters(z.object({ client: resourceId.optional() }));
    const [viaComponent] = queryParameters(z.object({ client: ResourceId.optional() }));
    const [otherPattern] = queryParameters(z.object({ client: z.string().max(128).optional() }));
    expect(viaParser.schema).toEqual({ $ref: '#/components/schemas/ResourceId' });
    expect(viaComponent.schema).toEqual(viaParser.schema);
    expect(otherPattern.schema).toEqual({ type: 'string', maxLength: 128 });
  });
});

describe('an operation from its feature\'s account of it', () => {
  const Thing = z.strictObject({ name: z.string() });
  const docs = operations({
    getThing: {
      summary: 'Read a thing',
      responses: {
        200: { description: 'The thing.', schema: Thing, example: { name: 'x' } },
        400: badParameters('A query parameter is invalid.', { invalidLimit: 'Invalid limit: must be a whole number from 1 to 100' }),
        404: notFound('No such thing.', { thingNotFound: 'Thing not found' }),
        410: { description: 'Gone.' },
      },
    },
  });

  test('an answer is JSON of its schema, a problem carries the detail texts then the shared ones, a status without either has no body', () => {
    const { responses } = operationOf('getThing', 'Things', docs.getThing);
    expect(responses[200]).toEqual({
      description: 'The thing.',
      content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false }, example: { name: 'x' } } },
    });
    expect(Object.keys(responses[400].content['application/problem+json'].examples)).toEqual(['invalidLimit', 'badPathEncoding', 'badBusinessName']);
    expect(responses[404].content['application/problem+json'].examples.thingNotFound.value).toEqual({ type: '/problems/not-found', title: 'Not Found', status: 404, detail: 'Thing not found' });
    expect(Object.keys(responses[404].content['application/problem+json'].examples)).toEqual(['thingNotFound', 'noRoute']);
    expect(responses[410]).toEqual({ description: 'Gone.' });
  });

  test('a business route gets the statuses every one shares; one that reads a body also its 413 and 415; another door only its own', () => {
    expect(Object.keys(operationOf('getThing', 'Things', docs.getThing).responses)).toEqual(['200', '400', '401', '403', '404', '410', '429', '500', '503']);
    expect(Object.keys(operationOf('getThing', 'Things', docs.getThing, { body: true }).responses)).toEqual(['200', '400', '401', '403', '404', '410', '413', '415', '429', '500', '503']);
    expect(Object.keys(operationOf('getThing', 'Things', docs.getThing, { shared: {} }).responses)).toEqual(['200', '400', '404', '410']);
  });
});
