// Parsed selector requirements: the AST shared by the selector parsers (src/kube), storage and the apiserver.

/**
 * Operators of label and (enhanced) field selectors.
 * `exists`: `key`; `!`: `!key`; `gt`/`lt`: `key>N` / `key<N` (integer comparison).
 */
export type SelectorOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One label requirement: `app=web`, `tier in (a,b)`, `!canary`. */
export interface LabelRequirement {
  key: string;
  operator: SelectorOperator;
  /** Exactly one for =,==,!=,gt,lt; one or more for in/notin; none for exists/!. */
  values: string[];
}

/**
 * One segment of a field path. `spec.containers[].image` is
 * [{name:'spec'}, {name:'containers', list:true}, {name:'image'}];
 * `spec.containers[0].image` has `index: 0` on the middle segment.
 */
export interface FieldPathSegment {
  name: string;
  /** `[]`: any element of the list matches. */
  list?: boolean;
  /** `[N]`: the N-th element. */
  index?: number;
}

/** One enhanced field-selector requirement (reference §2.4): a JSON path into the object. */
export interface FieldRequirement {
  path: FieldPathSegment[];
  operator: SelectorOperator;
  values: string[];
  /**
   * The value an absent field has, for a Kubernetes field label (field-labels.ts: kube renders a missing string as
   * "", a missing bool as "false"); undefined for a JSON path, where absent is absent.
   */
  absentAs?: string;
  /**
   * For a Kubernetes field label that reads another field when its own is absent or "" (an Event's `source`: its
   * source's component, else its reporting component): that field's path. `absentAs` then applies to it.
   */
  orPath?: FieldPathSegment[];
}
