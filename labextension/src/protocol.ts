/**
 * The live-notebook protocol, frontend side.  Mirrored one-to-one by
 * jupyter_agent/notebook/protocol.py; bump PROTOCOL_VERSION on any change.
 *
 * kernel  -> frontend: comm_open {protocol, version}
 * frontend -> kernel : Hello
 * kernel  -> frontend: Request  (addressed to one client_id)
 * frontend -> kernel : Response (exactly one per request: ok + result, or an error)
 * frontend -> kernel : CellsRemoved (the user deleted cells), OutputsCleared (the user cleared
 *                      cells' outputs) and OpenNotebooks (the notebooks open in the page changed);
 *                      a kernel that does not know these messages ignores them, so they need no
 *                      new version
 */

export const COMM_TARGET = 'jupyter_agent.notebook';
export const PROTOCOL_VERSION = 1;

export type CellType = 'code' | 'markdown' | 'raw';

/** What this frontend can do beyond version 1 (a kernel ignores what it does not know).
 * 'paths': a request may name another notebook open in this page (IRequest.path), and
 * list_open lists them (the page also says which are open unasked: IHello.open, then
 * IOpenNotebooks on every change). */
export const FEATURES = ['paths'];

export interface IHello {
  type: 'hello';
  version: number;
  client_id: string;
  path: string;
  server_root: string;
  features: string[];
  /** The notebooks open in this page (server-relative). */
  open?: string[];
}

/** The notebooks open in this page now (server-relative): sent when that changes. */
export interface IOpenNotebooks {
  type: 'open_notebooks';
  client_id: string;
  paths: string[];
}

/** Cells the user deleted (not the agent's own edits; a moved cell is not deleted). */
export interface ICellsRemoved {
  type: 'cells_removed';
  client_id: string;
  cell_ids: string[];
}

/** Cells whose outputs the user cleared (not cells run again, which clears them too). */
export interface IOutputsCleared {
  type: 'outputs_cleared';
  client_id: string;
  cell_ids: string[];
}

export interface INewCell {
  id?: string | null;
  cell_type: CellType;
  source: string;
}

export interface IGetNotebookArgs {}
export interface IInsertCellsArgs {
  after_cell_id: string | null;
  cells: INewCell[];
}
export interface IReplaceCellArgs {
  cell_id: string;
  source: string;
  cell_type: CellType | null;
  expected_hash: string | null;
}
export interface IDeleteCellsArgs {
  cell_ids: string[];
  expected_hashes: { [cellId: string]: string };
}
export interface IMoveCellsArgs {
  cell_ids: string[];
  after_cell_id: string | null;
}
export interface IExecuteCellsArgs {
  cell_ids: string[];
}
export interface IRevealCellArgs {
  cell_id: string;
}
export interface INotifyArgs {
  message: string;
  cell_id: string;
}
export interface IDismissNotificationArgs {
  id: string;
}
export interface IListOpenArgs {}
export interface IShowOutputArgs {
  cell_id: string;
  display_id: string;
  data: { [mime: string]: unknown };
}

export interface IOpArgs {
  get_notebook: IGetNotebookArgs;
  insert_cells: IInsertCellsArgs;
  replace_cell: IReplaceCellArgs;
  delete_cells: IDeleteCellsArgs;
  move_cells: IMoveCellsArgs;
  execute_cells: IExecuteCellsArgs;
  reveal_cell: IRevealCellArgs;
  notify: INotifyArgs;
  dismiss_notification: IDismissNotificationArgs;
  show_output: IShowOutputArgs;
  list_open: IListOpenArgs;
}

export type Op = keyof IOpArgs;
export const OPS: Op[] = [
  'get_notebook',
  'insert_cells',
  'replace_cell',
  'delete_cells',
  'move_cells',
  'execute_cells',
  'reveal_cell',
  'notify',
  'dismiss_notification',
  'show_output',
  'list_open'
];

export interface IRequest<K extends Op = Op> {
  type: 'request';
  id: string;
  client_id: string;
  op: K;
  args: IOpArgs[K];
  /** Another notebook open in this page (server-relative); absent: the view's own notebook. */
  path?: string;
}

/** Error names the kernel side maps to messages for the model. */
export type ErrorName =
  | 'bad_request'
  | 'unknown_op'
  | 'not_found'
  | 'stale_cell'
  | 'no_model'
  | 'execution_failed'
  | 'internal'
  | 'not_open';

export interface IError {
  name: ErrorName;
  message: string;
}

export interface IGetNotebookResult {
  path: string;
  notebook: unknown;
}
export interface IEditResult {
  cell_ids: string[];
  cell_type: CellType | null;
  language: string;
  index: number;
  /** How many cells the notebook has after the edit. */
  cell_count: number;
}
export interface IExecutedCell {
  cell_id: string;
  execution_count: number | null;
  outputs: unknown[];
}
export interface IExecuteCellsResult {
  cells: IExecutedCell[];
}

export type Response =
  | { type: 'response'; id: string; ok: true; result: unknown }
  | { type: 'response'; id: string; ok: false; error: IError };

/** An error that becomes a failed Response (anything else is reported as 'internal'). */
export class ProtocolError extends Error {
  constructor(
    readonly errorName: ErrorName,
    message: string
  ) {
    super(message);
  }
}

/** A Request, or null when `data` is not one (wrong shape or unknown op). */
export function parseRequest(data: unknown): IRequest | null {
  if (typeof data !== 'object' || data === null) {
    return null;
  }
  const d = data as { [k: string]: unknown };
  if (d.type !== 'request' || typeof d.id !== 'string' || typeof d.op !== 'string') {
    return null;
  }
  const args = typeof d.args === 'object' && d.args !== null ? d.args : {};
  return {
    type: 'request',
    id: d.id,
    client_id: typeof d.client_id === 'string' ? d.client_id : '',
    op: d.op as Op,
    args: args as IOpArgs[Op],
    path: typeof d.path === 'string' ? d.path : undefined
  };
}
