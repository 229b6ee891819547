// What a ServiceAccount may do according to the rendered Roles, ClusterRoles and their bindings.
import { NAMESPACE, type PolicyRule, type Rendered, type Role, type RoleBinding } from './render.js';

interface ScopedRule {
  /** undefined = cluster-wide (ClusterRoleBinding); else the RoleBinding's namespace. */
  namespace?: string;
  rule: PolicyRule;
}

export interface Request {
  verb: string;
  group: string;
  resource: string;
  /** undefined = a cluster-wide request (cluster-scoped object, or all namespaces). */
  namespace?: string;
  name?: string;
}

export function bindingsOf(r: Rendered, sa: string): RoleBinding[] {
  return [...r.ofKind<RoleBinding>('RoleBinding'), ...r.ofKind<RoleBinding>('ClusterRoleBinding')].filter((b) =>
    b.subjects.some((s) => s.kind === 'ServiceAccount' && s.name === sa && s.namespace === NAMESPACE));
}

/** The rules granted to the ServiceAccount by roles defined in the render (built-in roles are not known here). */
export function rulesOf(r: Rendered, sa: string): ScopedRule[] {
  const out: ScopedRule[] = [];
  for (const b of bindingsOf(r, sa)) {
    const role = b.roleRef.kind === 'ClusterRole'
      ? r.ofKind<Role>('ClusterRole').find((x) => x.metadata.name === b.roleRef.name)
      : r.ofKind<Role>('Role').find((x) => x.metadata.name === b.roleRef.name && x.metadata.namespace === b.metadata.namespace);
    if (!role) continue;
    const namespace = b.kind === 'RoleBinding' ? b.metadata.namespace : undefined;
    for (const rule of role.rules) out.push(namespace === undefined ? { rule } : { namespace, rule });
  }
  return out;
}

export function can(r: Rendered, sa: string, q: Request): boolean {
  return rulesOf(r, sa).some(({ namespace, rule }) =>
    (namespace === undefined || namespace === q.namespace) &&
    rule.verbs.includes(q.verb) &&
    (rule.apiGroups ?? []).includes(q.group) &&
    (rule.resources ?? []).includes(q.resource) &&
    (rule.resourceNames === undefined || (q.name !== undefined && rule.resourceNames.includes(q.name))));
}
