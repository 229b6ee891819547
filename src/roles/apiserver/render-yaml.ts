// YAML lists rendered item by item from the JSON renderer's pieces, so a YAML list streams like a JSON one.
import { parseWithBigInts } from '../../kube/exact-json.js';
import { toYaml } from '../../kube/yaml.js';
import type { ListMeta } from '../../kube/types.js';
import type { StoredRow } from '../../storage/types.js';
import type { ListRenderer } from './render.js';

/** Indents one item's YAML document as an entry of a block sequence under a top-level key (`  - …`). */
function sequenceEntry(doc: string): string {
  const lines = doc.replace(/\n$/, '').split('\n');
  return `${lines.map((l, i) => (i === 0 ? `  - ${l}` : l === '' ? '' : `    ${l}`)).join('\n')}\n`;
}

/**
 * Wraps a JSON list renderer: the same document, as `yaml` would print it whole, but converted one item at a time.
 * The JSON head is `{…,"<array>":[`; everything before the array key is printed first, the items as a block
 * sequence under it, then the tail's keys (metadata, known only once the rows are exhausted).
 */
export function yamlListRenderer(json: ListRenderer): ListRenderer {
  let arrayKey = 'items';
  let items = 0;
  return {
    head() {
      const head = JSON.parse(`${json.head()}]}`) as Record<string, unknown>;
      const keys = Object.keys(head);
      arrayKey = keys[keys.length - 1] ?? 'items';
      delete head[arrayKey];
      return Object.keys(head).length ? toYaml(head) : '';
    },
    separator: '',
    item(row: StoredRow) {
      const obj = parseWithBigInts(json.item(row).toString());
      return `${items++ === 0 ? `${arrayKey}:\n` : ''}${sequenceEntry(toYaml(obj))}`;
    },
    tail(meta: ListMeta) {
      const tail = JSON.parse(`{${json.tail(meta).replace(/^\]\s*,?/, '')}`) as Record<string, unknown>;
      return `${items === 0 ? `${arrayKey}: []\n` : ''}${toYaml(tail)}`;
    },
  };
}
