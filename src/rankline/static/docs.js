// The /docs page's viewer: Swagger UI rendering the OpenAPI document. A file of its own, not
// an inline script, so that the page's Content-Security-Policy can forbid inline scripts.
SwaggerUIBundle({ url: "/openapi.json", dom_id: "#docs", deepLinking: true });
