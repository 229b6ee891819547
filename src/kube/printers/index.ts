// Server-side Table printing (pure, no I/O): kube-apiserver's columns and cells behind a Cluster column.

export type {
  IncludeObject, PrinterColumn, ResourcePrinter, Table, TableColumnDefinition, TablePrinter, TableRow,
  TableRowCondition,
} from './types.js';
export {
  CLUSTER_COLUMN, buildTable, rowObject, tableFor, tableJsonEnd, tableJsonStart, tableMetadata, withClusterColumn,
  type TableOptions,
} from './table.js';
export { resourcePrinterFor } from './registry.js';
export { customResourcePrinter, defaultPrinter } from './custom-resource.js';
export { scalePrinter } from './scaling.js';
export { metricsPrinter, quantityValue } from './metrics.js';
export {
  COLLECTION_COLUMNS, COLLECTION_LIST_COLUMNS, collectionListTable, collectionTable,
} from './collections.js';
export { humanDuration, shortHumanDuration, translateTimestampSince } from './duration.js';
export { findResults, parseJsonPath, type JsonPath, type ParseResult } from './jsonpath.js';
