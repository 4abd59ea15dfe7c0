import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenLocally, readBody, sendWebhook, type SentWebhook } from './http';

/*
 * A local Salesforce for jsforce: the OAuth token endpoint (refresh_token grant: a new access token,
 * the old one expired), the REST sobject Lead retrieve and update of API v62.0, and an org assignment
 * rule that takes the Lead's owner over unless the update says `Sforce-Auto-Assign: FALSE`. Its
 * Outbound Message sender posts SOAP envelopes as Salesforce documents them (notifications of Lead).
 * `npm start` (CRM_FAKES=1) drives it through its control routes, unauthenticated and development only:
 * `POST /_fake/leads` `{ FirstName?, LastName, Phone?, target, organizationId? }` creates a Lead and sends
 * its Outbound Message to `target` (the connector's inbound URL, its secret included), answering the delivery (replayable as is); `GET /_fake/writes`.
 */

export interface FakeLead {
  FirstName?: string | null;
  LastName: string;
  Phone?: string | null;
  MobilePhone?: string | null;
  OwnerId?: string;
}

export interface FakeSalesforce {
  url: string;
  organizationId: string;
  /** The first access token, expired the moment it is used: jsforce must renew it with the refresh token. */
  accessToken: string;
  refreshToken: string;
  clientId: string;
  clientSecret: string;
  leads: Map<string, FakeLead>;
  /** Every PATCH of a Lead: the owner asked for, and the `Sforce-Auto-Assign` header it carried. */
  writes: { id: string; owner: string; autoAssign: string | undefined; status: number }[];
  refreshes: number;
  /** The owner the org's assignment rule gives a Lead updated without `Sforce-Auto-Assign: FALSE`. */
  ruleOwner: string;
  /** A Lead id (00Q…, 18 characters) not used before. */
  newLeadId(): string;
  createLead(id: string, lead: FakeLead): void;
  /** An Outbound Message of these Leads, each notification with its own id (or the ids given). */
  outboundMessage(leadIds: string[], options?: { organizationId?: string; notificationIds?: string[] }): string;
  send(targetUrl: string, envelope: string): Promise<SentWebhook>;
  stop(): Promise<void>;
}

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const salesforceId = (prefix: string) => prefix + Array.from(randomBytes(15), (b) => ID_CHARS[b % ID_CHARS.length]).join('');

export interface FakeSalesforceOptions {
  port?: number;
  organizationId?: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
}

export async function startFakeSalesforce(options: FakeSalesforceOptions = {}): Promise<FakeSalesforce> {
  const organizationId = options.organizationId ?? salesforceId('00D');
  const state = {
    accessToken: `00D!expired-${randomBytes(6).toString('hex')}`,
    refreshToken: options.refreshToken ?? `5Aep${randomBytes(12).toString('hex')}`,
    clientId: options.clientId ?? `3MVG9${randomBytes(8).toString('hex')}`,
    clientSecret: options.clientSecret ?? randomBytes(16).toString('hex'),
  };
  const validTokens = new Set<string>();
  const leads = new Map<string, FakeLead>();
  const createdAt = new Map<string, number>();
  const writes: FakeSalesforce['writes'] = [];
  let url = '';

  const control = async (req: { method?: string; url?: string }, body: string, res: ServerResponse) => {
    const answer = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    if (req.method === 'GET' && req.url === '/_fake/writes') return answer(200, writes);
    if (req.method !== 'POST' || req.url !== '/_fake/leads') return answer(404, { error: 'POST /_fake/leads or GET /_fake/writes' });
    const { target, organizationId: org, ...lead } = JSON.parse(body || '{}') as Partial<FakeLead> & { target?: string; organizationId?: string };
    if (typeof target !== 'string' || typeof lead.LastName !== 'string') return answer(400, { error: 'LastName and target (the inbound URL) are required' });
    const id = fake.newLeadId();
    fake.createLead(id, lead as FakeLead);
    answer(200, { id, ...(await fake.send(target, fake.outboundMessage([id], { organizationId: org }))) });
  };

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.url?.startsWith('/_fake/')) return control(req, body, res).catch((error) => res.writeHead(500).end(String(error)));
    const send = (status: number, payload?: unknown) => {
      if (payload === undefined) return res.writeHead(status).end();
      res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' }).end(JSON.stringify(payload));
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/services/oauth2/token') {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== state.refreshToken || form.get('client_id') !== state.clientId || form.get('client_secret') !== state.clientSecret) {
        return send(400, { error: 'invalid_grant', error_description: 'expired access/refresh token' });
      }
      fake.refreshes++;
      const token = `00D!${randomBytes(12).toString('hex')}`;
      validTokens.add(token);
      return send(200, { access_token: token, instance_url: url, id: `${url}/id/${organizationId}/005000000000001AAA`, token_type: 'Bearer', issued_at: String(Date.now()), signature: 'x' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !validTokens.has(bearer)) return send(401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    if (req.method === 'GET' && path === '/services/data/v62.0/query') {
      // The catch-up sweep's SOQL: SELECT Id FROM Lead WHERE CreatedDate >= <datetime> ORDER BY CreatedDate LIMIT n.
      const soql = new URL(req.url ?? '', url).searchParams.get('q') ?? '';
      const query = /^SELECT Id FROM Lead WHERE CreatedDate >= (\S+) ORDER BY CreatedDate LIMIT (\d+)$/.exec(soql);
      if (!query) return send(400, [{ errorCode: 'MALFORMED_QUERY', message: 'unexpected query' }]);
      const since = Date.parse(query[1]);
      const ids = [...createdAt].filter(([, at]) => at >= since).sort((a, b) => a[1] - b[1]).slice(0, Number(query[2]));
      return send(200, { totalSize: ids.length, done: true, records: ids.map(([id]) => ({ attributes: { type: 'Lead', url: `/services/data/v62.0/sobjects/Lead/${id}` }, Id: id })) });
    }
    const match = /^\/services\/data\/v62\.0\/sobjects\/Lead\/([A-Za-z0-9]{15,18})$/.exec(path);
    if (!match) return send(404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
    const id = match[1];
    const lead = leads.get(id);
    if (!lead) return send(404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
    if (req.method === 'GET') {
      const name = [lead.FirstName, lead.LastName].filter(Boolean).join(' ');
      return send(200, { attributes: { type: 'Lead', url: `/services/data/v62.0/sobjects/Lead/${id}` }, Id: id, Name: name, Company: 'Acme', Status: 'Open - Not Contacted', ...lead });
    }
    if (req.method === 'PATCH') {
      const owner = (JSON.parse(body) as { OwnerId?: string }).OwnerId;
      if (typeof owner !== 'string') return send(400, [{ errorCode: 'INVALID_FIELD', message: 'OwnerId expected' }]);
      const autoAssign = req.headers['sforce-auto-assign'] as string | undefined;
      writes.push({ id, owner, autoAssign, status: 204 });
      // The org's active assignment rule runs on update unless the header turns it off.
      lead.OwnerId = autoAssign?.toUpperCase() === 'FALSE' ? owner : fake.ruleOwner;
      return send(204);
    }
    send(405, [{ errorCode: 'METHOD_NOT_ALLOWED', message: 'HTTP Method not allowed' }]);
  });
  url = await listenLocally(server, options.port);

  const fake: FakeSalesforce = {
    url,
    organizationId,
    accessToken: state.accessToken,
    refreshToken: state.refreshToken,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    leads,
    writes,
    refreshes: 0,
    ruleOwner: '00G000000000009AAA',
    newLeadId: () => salesforceId('00Q'),
    createLead: (id, lead) => {
      leads.set(id, { OwnerId: '005000000000000AAA', ...lead });
      createdAt.set(id, Date.now());
    },
    outboundMessage: (leadIds, options = {}) => {
      const org = options.organizationId ?? organizationId;
      const notifications = leadIds
        .map(
          (leadId, i) =>
            `<Notification><Id>${options.notificationIds?.[i] ?? salesforceId('04l')}</Id>` +
            `<sObject xsi:type="sf:Lead" xmlns:sf="urn:sobject.enterprise.soap.sforce.com"><sf:Id>${leadId}</sf:Id></sObject></Notification>`,
        )
        .join('');
      return (
        '<?xml version="1.0" encoding="UTF-8"?>' +
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        '<soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound">' +
        `<OrganizationId>${org}</OrganizationId><ActionId>04k000000000001AAA</ActionId><SessionId xsi:nil="true"/>` +
        `<EnterpriseUrl>${url}/services/Soap/c/62.0/${org.slice(0, 15)}</EnterpriseUrl><PartnerUrl>${url}/services/Soap/u/62.0/${org.slice(0, 15)}</PartnerUrl>` +
        `${notifications}</notifications></soapenv:Body></soapenv:Envelope>`
      );
    },
    send: (targetUrl, envelope) => sendWebhook(targetUrl, { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' }, envelope),
    stop: () => closeServer(server),
  };
  return fake;
}
