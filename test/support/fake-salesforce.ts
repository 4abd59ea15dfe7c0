import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './crm';

/*
 * A local Salesforce for jsforce: the OAuth token endpoint (refresh_token grant: a new access token,
 * the old one expired), the REST sobject Lead retrieve and update of API v62.0, and an org assignment
 * rule that takes the Lead's owner over unless the update says `Sforce-Auto-Assign: FALSE`. Its
 * Outbound Message sender posts SOAP envelopes as Salesforce documents them (notifications of Lead).
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
  send(targetUrl: string, envelope: string): Promise<{ status: number; body: string; contentType: string | null }>;
  stop(): Promise<void>;
}

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const salesforceId = (prefix: string) => prefix + Array.from(randomBytes(15), (b) => ID_CHARS[b % ID_CHARS.length]).join('');

export async function startFakeSalesforce(): Promise<FakeSalesforce> {
  const organizationId = salesforceId('00D');
  const state = {
    accessToken: `00D!expired-${randomBytes(6).toString('hex')}`,
    refreshToken: `5Aep${randomBytes(12).toString('hex')}`,
    clientId: `3MVG9${randomBytes(8).toString('hex')}`,
    clientSecret: randomBytes(16).toString('hex'),
  };
  const validTokens = new Set<string>();
  const leads = new Map<string, FakeLead>();
  const createdAt = new Map<string, number>();
  const writes: FakeSalesforce['writes'] = [];
  let url = '';

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

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
    send: async (targetUrl, envelope) => {
      const response = await fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' }, body: envelope });
      return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
