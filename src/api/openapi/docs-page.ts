/** The page at /docs: Swagger UI from this server's own copy, pointed at /openapi.json. Nothing comes from another host. */
export function docsPage(assetBase: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${assetBase}/favicon-32x32.png">
<link rel="stylesheet" href="${assetBase}/swagger-ui.css">
</head>
<body>
<noscript>This page needs JavaScript. The description itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="docs"></div>
<script src="${assetBase}/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
}

/** A file of its own rather than an inline script, so the page's Content-Security-Policy can forbid inline scripts. */
export const DOCS_INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#docs',
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  // The default would send the document to an online validator.
  validatorUrl: null,
});
`;

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  // "Try it out" calls the API on this same origin.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
