/**
 * Who may change the designs of a project. A design's `projectId` that is a
 * registered domain belongs to that domain: creating, recalculating and
 * submitting its designs is for the domain's controllers and for admins; any
 * other key gets 403 `not_controller`. The check reads the domain as it is
 * now, so handing a domain over (PATCH controllers) hands over its designs
 * too. A `projectId` that is not a registered domain keeps the open rules:
 * any key creates and recalculates, the creator (or an admin) submits.
 */
import { registryError } from '../../lib/registry/errors.ts';
import type { Principal } from '../../lib/registry/types.ts';
import type { Domains } from './domains.ts';

type DesignAction = 'create' | 'recalculate' | 'submit';

/**
 * Throws 403 not_controller unless `p` may do `action` on a design of
 * `projectId`; `createdBy` is the design's creator (for submit of a design
 * whose project is not a registered domain).
 */
export async function mayChangeDesign(
  domains: Domains,
  p: Principal,
  projectId: string,
  action: DesignAction,
  createdBy?: string,
): Promise<void> {
  if (p.roles.includes('admin')) return;
  const dom = await domains.find(projectId);
  if (dom) {
    if (dom.controllers.includes(p.did)) return;
    throw registryError(
      'not_controller',
      `${p.did} may not ${action} designs of ${projectId}: the project is a registered domain, and its designs are changed by its controllers and admins only`,
      { details: { projectId, action, controllers: dom.controllers } },
    );
  }
  if (action === 'submit' && createdBy !== p.did) {
    throw registryError(
      'not_controller',
      `only the design's creator or an admin may submit a design of ${projectId} (not a registered domain)`,
      { details: { projectId, action, createdBy } },
    );
  }
}
