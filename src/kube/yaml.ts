// YAML as kube prints it: long strings stay on one line. The `yaml` package folds long scalars by default, and it
// folds by UTF-16 unit, so a fold can fall between the two halves of an emoji and each half is then written as U+FFFD.
import { stringify } from 'yaml';

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}
