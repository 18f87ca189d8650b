// Reads a sign-in request's device signals (src/domain/risk/signals.ts), and gives a browser its device cookie.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { single, type RawParams } from '../../domain/params.js';
import { randomToken } from '../../domain/secrets.js';
import type { ClientSignals, DeviceSignals } from '../../domain/risk/signals.js';
import { deviceCookie } from '../cookies.js';

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value.slice(0, 512) : undefined;
};

/** A device cookie is 128 random bits in base64url: anything else is ignored as absent. */
const DEVICE_COOKIE = /^[A-Za-z0-9_-]{22,64}$/;

export function deviceSignalsOf(request: FastifyRequest, config: Config, form?: RawParams): DeviceSignals {
  const cookie = request.cookies[deviceCookie(config).name];
  return {
    ip: request.ip,
    userAgent: header(request, 'user-agent'),
    acceptLanguage: header(request, 'accept-language'),
    hints: {
      brands: header(request, 'sec-ch-ua'),
      mobile: header(request, 'sec-ch-ua-mobile'),
      platform: header(request, 'sec-ch-ua-platform'),
    },
    deviceCookie: cookie && DEVICE_COOKIE.test(cookie) ? cookie : undefined,
    client: form ? clientSignals(form) : {},
  };
}

/** The page script's fields; empty or malformed ones are simply absent. */
function clientSignals(form: RawParams): ClientSignals {
  const field = (name: string) => {
    const value = single(form, name);
    return value ? value.slice(0, 100) : undefined;
  };
  const webdriver = field('ds_webdriver');
  const cores = Number(field('ds_hc'));
  return {
    webdriver: webdriver === '1' ? true : webdriver === '0' ? false : undefined,
    timeZone: field('ds_tz'),
    hardwareConcurrency: Number.isInteger(cores) && cores > 0 ? cores : undefined,
    screen: field('ds_screen'),
    languages: field('ds_langs'),
  };
}

/**
 * Sign-in pages give a browser without a (well-formed) device cookie a new one, and set a browser's own again so
 * that its lifetime runs from its latest visit: a device in use never expires into a new one.
 */
export function ensureDeviceCookie(request: FastifyRequest, reply: FastifyReply, config: Config): void {
  const spec = deviceCookie(config);
  const current = request.cookies[spec.name];
  reply.setCookie(spec.name, current && DEVICE_COOKIE.test(current) ? current : randomToken(16), spec.options);
}

export function setDeviceCookie(reply: FastifyReply, config: Config, value: string): void {
  const spec = deviceCookie(config);
  reply.setCookie(spec.name, value, spec.options);
}
