import { OPT_OUT_SCHEMAS, OptOutListQuery } from '../../../use-cases/opt-outs/contract';
import { OPT_OUT_OPERATIONS as ops, OPT_OUTS_TAG } from '../../../use-cases/opt-outs/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX } from '../components';
import { queryParameters } from '../from-zod';
import { operationOf } from '../operation';

export const optOutsApi: ApiPart = {
  tags: [{ name: 'Opt-outs', description: OPT_OUTS_TAG }],
  contracts: OPT_OUT_SCHEMAS,
  paths: {
    [`${PREFIX}/opt-outs`]: inBusiness({ get: operationOf('listOptOuts', 'Opt-outs', ops.listOptOuts, { parameters: queryParameters(OptOutListQuery) }) }),
  },
};
