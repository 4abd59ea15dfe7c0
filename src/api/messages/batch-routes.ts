import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { BatchRefused, sendMessageBatchRequest, type AcceptBatchDeps } from '../../use-cases/messages/accept-batch';
import { cancelBatch, findOwnedBatch, listBatches } from '../../use-cases/messages/batches';
import { messageBatchView } from '../../views/message-batch';
import { jsonText } from '../http/json-text';
import { refuseAnyField } from '../../use-cases/input/known-fields';

/** The largest campaign body read (1,000 recipients with their own texts). */
export const BATCH_BODY_LIMIT = 5 * 1024 * 1024;

/** Campaigns: `POST /messages/batch`, the caller's list, a batch's status and its cancel. Mounted before `/messages/:messageId`. */
export function messageBatchesRouter(deps: AcceptBatchDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/messages/batch', async (req, res) => {
    const scope = scopeOf(req);
    try {
      const { batch, results, replayed } = await sendMessageBatchRequest(deps, scope, req.body, req.get('Idempotency-Key'), String(req.id));
      if (replayed) res.set('Idempotent-Replayed', 'true');
      res.status(202).location(`/ext/v2/${scope.business}/messages/batch/${batch!.id}`).json({ batch_id: batch!.id, results });
    } catch (error) {
      if (!(error instanceof BatchRefused)) throw error;
      // Problem details, with each recipient's own problem beside them.
      res
        .status(400)
        .type('application/problem+json')
        .send(jsonText({ type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: error.detail, instance: `urn:request:${String(req.id)}`, batch_id: null, results: error.results }));
    }
  });

  // A path of its own, declared before `/messages/:messageId` reads it as a message id.
  router.get('/messages/batches', async (req, res) => {
    const { batches, nextCursor } = await listBatches(deps.prisma, scopeOf(req), req.query);
    res.json({ batches: batches.map(messageBatchView), next_cursor: nextCursor });
  });

  router.get('/messages/batch/:batchId', async (req, res) => {
    res.json(messageBatchView(await findOwnedBatch(deps.prisma, scopeOf(req), req.params.batchId)));
  });

  router.post('/messages/batch/:batchId/cancel', async (req, res) => {
    refuseAnyField(req.body);
    res.json(messageBatchView(await cancelBatch(deps, scopeOf(req), req.params.batchId)));
  });

  return router;
}
