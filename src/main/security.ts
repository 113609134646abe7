// Session-wide policy: the strict CSP on every response and every permission request denied.

import type { Session } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../shared/csp';

export function applySessionPolicy(ses: Session): void {
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });
}
