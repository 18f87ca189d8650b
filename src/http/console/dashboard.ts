// The console's dashboard (issue 20): server-drawn charts of the last day and week.
import type { FastifyInstance } from 'fastify';
import { dashboardCharts } from '../../domain/console/dashboard.js';
import type { ProviderContext } from '../../domain/context.js';
import { translator } from '../../i18n/translate.js';
import { dashboardBody } from './views/dashboard.js';
import { personOf, sendPage } from './console-http.js';

export function dashboardPage(app: FastifyInstance, ctx: ProviderContext, base: string): void {
  app.get('/', async (request, reply) => {
    const t = request.consoleText ?? translator(ctx.config.defaultLocale);
    const body = dashboardBody(t, await dashboardCharts(ctx));
    return sendPage(reply, base, { title: t('console.nav.dashboard'), section: '', body }, personOf(request));
  });
}
