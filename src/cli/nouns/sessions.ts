// sso-admin sessions list|revoke --user: a user's browser sessions, and signing them out everywhere.
import { listSessions, revokeSessions } from '../../domain/admin/user-admin.js';
import { sessionJson } from '../../domain/admin/representations.js';
import { verb, type Noun, type OptionSpec } from '../command.js';
import { iso } from '../output.js';

export const USER_OPTION: OptionSpec = { type: 'string', value: 'USER', required: true, description: "the user's id or username" };

export const sessions: Noun = {
  name: 'sessions',
  summary: "users' browser sessions (sign-ins), and ending them",
  verbs: [
    verb({
      name: 'list',
      summary: "List a user's live sessions: when they signed in, from which device, into which clients.",
      options: { user: USER_OPTION },
      async run(session, input) {
        const { sessions: live } = await listSessions(session.ctx, input.options.user as string);
        if (input.json) {
          return session.out.json(live.map(sessionJson));
        }
        session.out.table(
          ['sid', 'signed in', 'expires', 'amr', 'device', 'clients'],
          live.map((s) => [s.sid, iso(s.authTime), iso(s.expiresAt), s.amr.join(','), s.deviceLabel ?? '-', s.clientIds.join(',') || '-']),
          'no live sessions',
        );
      },
    }),
    verb({
      name: 'revoke',
      summary: 'End every session of a user, telling their clients by back-channel logout.',
      options: { user: USER_OPTION },
      destructive: true,
      notes: `The user is signed out on every browser at once. The logout tokens are queued in the database and sent by
the running instances (within BACKCHANNEL_LOGOUT_POLL_SECONDS). Tokens already issued stay valid until they
expire, as after a logout: users disable, or devices revoke, revokes them too.`,
      async run(session, input) {
        const { user, sessions: live } = await listSessions(session.ctx, input.options.user as string);
        await session.confirm(`End all ${live.length} sessions of "${user.username}"?`);
        const done = await revokeSessions(session.ctx, user.id);
        if (input.json) {
          return session.out.json({
            user_id: done.user.id,
            username: done.user.username,
            sessions_ended: done.endedSids.length,
            sids: done.endedSids,
            backchannel_logouts_queued: done.logoutsQueued,
          });
        }
        session.out.line(
          `${done.endedSids.length} sessions of "${done.user.username}" ended (${done.logoutsQueued} back-channel logouts queued)`,
        );
      },
    }),
  ],
};
