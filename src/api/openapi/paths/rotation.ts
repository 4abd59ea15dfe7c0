import { ROTATION_SCHEMAS } from '../../../use-cases/rotation/contract';
import { ROTATION_OPERATIONS as ops, ROTATION_TAG } from '../../../use-cases/rotation/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX } from '../components';
import { operationOf } from '../operation';
import { clientIdParameter } from './clients';

export const rotationApi: ApiPart = {
  tags: [{ name: 'Rotation', description: ROTATION_TAG }],
  contracts: ROTATION_SCHEMAS,
  paths: {
    [`${PREFIX}/clients/{_id}/rotation`]: inBusiness(
      {
        put: operationOf('putRotation', 'Rotation', ops.putRotation, { body: true }),
        get: operationOf('getRotation', 'Rotation', ops.getRotation),
        delete: operationOf('stopRotation', 'Rotation', ops.stopRotation, { body: true }),
      },
      clientIdParameter,
    ),
  },
};
