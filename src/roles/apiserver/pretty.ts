// kube-apiserver's `pretty`: JSON answers indented for `?pretty=true`, and for curl, Wget and browsers unless
// `pretty` says otherwise (apimachinery's isPrettyPrint), so a person reading an answer in a terminal can.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonIndenter } from '../../lib/json-indent.js';

const prettyResponses = new WeakSet<ServerResponse>();

/** Go's strconv.ParseBool; undefined where it fails (kube then takes false). */
function goBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** Whether `req` asks for indented JSON: its `pretty` parameter when given, else its User-Agent. */
export function wantsPretty(req: IncomingMessage, url: URL): boolean {
  const param = url.searchParams.get('pretty');
  if (param) return goBool(param) ?? false;
  const agent = req.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** Marks `res` as one whose JSON body goes out indented. */
export function markPretty(res: ServerResponse): void {
  prettyResponses.add(res);
}

/** An indenter for a body of `contentType` sent on `res`, when it is JSON and indented; else undefined. */
export function indenterFor(res: ServerResponse, contentType: string | number | undefined): JsonIndenter | undefined {
  if (!prettyResponses.has(res) || typeof contentType !== 'string' || !/^application\/json\b/.test(contentType)) return undefined;
  return new JsonIndenter();
}
