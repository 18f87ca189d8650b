// The brand colour's stylesheet (BRAND_COLOR), linked by every page after the built-in style, which it overrides for
// buttons and links. Served from this origin so that the pages' CSP allows it by `style-src 'self'` without a hash
// that would change with the setting. Registered only when BRAND_COLOR is set.
import type { FastifyInstance } from 'fastify';

/**
 * Buttons filled with the colour (white text on it: config.ts brandColorProblem keeps WCAG 2.1 1.4.3's 4.5:1), and
 * the colour as text on the white card. The dark scheme keeps its own light link colour: a colour dark enough for
 * white text is too dark for text on the dark card.
 */
export function brandStylesheet(color: string): string {
  return `button{background:${color};border-color:${color}}button.secondary{background:transparent;color:${color}}a{color:${color}}
@media (prefers-color-scheme:dark){a,button.secondary{color:#93c5fd}button.secondary{border-color:#93c5fd}}
`;
}

export default async function brandingRoutes(app: FastifyInstance, opts: { color: string }) {
  const css = brandStylesheet(opts.color);
  app.get('/branding.css', async (_request, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(css),
  );
}
