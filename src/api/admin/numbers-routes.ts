import { Router } from 'express';
import { deleteNumber, listNumbers, numberView, putNumber, type NumberDeps } from '../../use-cases/numbers/manage';

export type NumberRoutesDeps = NumberDeps;

/** A business's numbers, for the operator: PUT registers or changes one, GET lists them, DELETE retires one. */
export function numbersRouter(deps: NumberRoutesDeps): Router {
  const router = Router();
  const params = (req: { params: Record<string, unknown> }) => ({ business: String(req.params.business), number: String(req.params.e164 ?? '') });

  router.put('/businesses/:business/numbers/:e164', async (req, res) => {
    const { business, number } = params(req);
    const { number: row } = await putNumber(deps, business, number, req.body);
    res.status(200).json(numberView(row));
  });
  router.get('/businesses/:business/numbers', async (req, res) => {
    const rows = await listNumbers(deps, params(req).business);
    res.json({ numbers: rows.map(numberView) });
  });
  router.delete('/businesses/:business/numbers/:e164', async (req, res) => {
    const { business, number } = params(req);
    await deleteNumber(deps, business, number);
    res.status(204).end();
  });
  return router;
}
