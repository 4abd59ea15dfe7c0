/*
 * node-fetch 3 is an ES module, which Node 20.19+ can `require` but jest's CommonJS runtime cannot: the
 * Vonage SDK (@vonage/server-client, @vonage/vetch) gets Node's own fetch in tests, which answers the same
 * Response interface it reads (ok, status, headers, text()).
 */
const nodeFetch = (input: string | URL | Request, init?: RequestInit) => fetch(input, init);

export default nodeFetch;
export const { Headers, Request, Response } = globalThis;
