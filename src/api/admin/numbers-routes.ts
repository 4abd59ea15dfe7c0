import { Router } from 'express';
import { deleteNumber, listNumbers, numbersAcrossBusinesses, numberView, putNumber, refreshNumberRegistration, type NumberDeps } from '../../use-cases/numbers/manage';
import { Invalid } from '../../use-cases/errors';

export type NumberRoutesDeps = NumberDeps;

/** A business's numbers, for the operator: PUT registers or changes one, GET lists them, DELETE retires one; each with its A2P registration. */
export function numbersRouter(deps: NumberRoutesDeps): Router {
  const router = Router();
  const params = (req: { params: Record<string, unknown> }) => ({ business: String(req.params.business), number: String(req.params.e164 ?? '') });

  router.put('/businesses/:business/numbers/:e164', async (req, res) => {
    const { business, number } = params(req);
    const { number: row, registration } = await putNumber(deps, business, number, req.body);
    res.status(200).json(numberView(row, registration));
  });
  router.get('/businesses/:business/numbers', async (req, res) => {
    const rows = await listNumbers(deps, params(req).business);
    res.json({ numbers: rows.map((row) => numberView(row.number, row.registration)) });
  });
  // The number's A2P registration read from its carrier now.
  router.post('/businesses/:business/numbers/:e164/registration/refresh', async (req, res) => {
    const { business, number } = params(req);
    const row = await refreshNumberRegistration(deps, business, number);
    res.status(200).json(numberView(row.number, row.registration));
  });
  // Every business's numbers; `can_send=false`: those whose registration, as last read, forbids their sends.
  router.get('/numbers', async (req, res) => {
    const filter = req.query.can_send;
    if (filter !== undefined && filter !== 'true' && filter !== 'false') throw new Invalid('Invalid can_send: must be true or false');
    const rows = await numbersAcrossBusinesses(deps, filter === undefined ? undefined : filter === 'true');
    res.json({ numbers: rows.map((row) => numberView(row.number, row.registration)) });
  });
  router.delete('/businesses/:business/numbers/:e164', async (req, res) => {
    const { business, number } = params(req);
    await deleteNumber(deps, business, number);
    res.status(204).end();
  });
  return router;
}
