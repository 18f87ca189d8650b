// sso-admin devices list|revoke --user [--device]: the devices a user signs in from (src/domain/risk/devices.ts).
import { listUserDevices, revokeUserDevices } from '../../domain/admin/user-admin.js';
import { deviceJson } from '../../domain/admin/representations.js';
import { verb, type Noun } from '../command.js';
import { iso } from '../output.js';
import { USER_OPTION } from './sessions.js';

export const devices: Noun = {
  name: 'devices',
  summary: 'the devices users sign in from, and revoking them',
  verbs: [
    verb({
      name: 'list',
      summary: "List a user's devices that are not revoked, most recently used first.",
      options: { user: USER_OPTION },
      async run(session, input) {
        const { devices: live } = await listUserDevices(session.ctx, input.options.user as string);
        if (input.json) {
          return session.out.json(live.map(deviceJson));
        }
        session.out.table(
          ['id', 'device', 'first seen', 'last seen', 'sign-ins', 'trusted'],
          live.map((d) => [d.id, d.label, iso(d.firstSeenAt), iso(d.lastSeenAt), String(d.signInCount), d.trusted ? 'yes' : 'no']),
          'no devices',
        );
      },
    }),
    verb({
      name: 'revoke',
      summary: 'Revoke one device of a user (--device), or all of them.',
      options: {
        user: USER_OPTION,
        device: {
          type: 'string',
          value: 'ID',
          description: 'the device to revoke (devices list shows the ids); every device of the user without it',
        },
      },
      destructive: true,
      notes: `As on the account page: each device's sessions end (the clients are told by back-channel logout) and the
refresh tokens, access tokens and codes issued through them are revoked; a device_revoked security event is
stored. The same browser signing in again later is a new device.`,
      async run(session, input) {
        const ref = input.options.user as string;
        const deviceId = input.options.device as string | undefined;
        const { user, devices: live } = await listUserDevices(session.ctx, ref);
        await session.confirm(
          deviceId === undefined
            ? `Revoke all ${live.length} devices of "${user.username}", ending their sessions and revoking their tokens?`
            : `Revoke device ${deviceId} of "${user.username}", ending its sessions and revoking its tokens?`,
        );
        const done = await revokeUserDevices(session.ctx, user.id, deviceId);
        if (input.json) {
          return session.out.json({
            user_id: done.user.id,
            username: done.user.username,
            revoked: done.revoked.map((d) => ({
              id: d.id,
              sessions_ended: d.endedSids.length,
              backchannel_logouts_queued: d.logoutsQueued,
            })),
          });
        }
        if (done.revoked.length === 0) session.out.line(`"${done.user.username}" has no devices to revoke`);
        for (const d of done.revoked) {
          session.out.line(
            `device ${d.id} of "${done.user.username}" revoked: ${d.endedSids.length} sessions ended (${d.logoutsQueued} back-channel logouts queued)`,
          );
        }
      },
    }),
  ],
};
