/**
 * The edit operations on one open notebook, through its shared model.  Cells are addressed
 * by id (an id that matches no cell may be "cell-N", the N-th cell, as the kernel's Read
 * shows cells that have no id).  Each edit is one undoable transaction.
 */

import { Notification } from '@jupyterlab/apputils';
import { CodeCell, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import type { ISharedCell, ISharedNotebook } from '@jupyter/ydoc';

import {
  CellType,
  IDeleteCellsArgs,
  IDismissNotificationArgs,
  IEditResult,
  IExecuteCellsArgs,
  IExecuteCellsResult,
  IGetNotebookResult,
  IInsertCellsArgs,
  IMoveCellsArgs,
  INotifyArgs,
  IReplaceCellArgs,
  IRevealCellArgs,
  IShowOutputArgs,
  ProtocolError
} from './protocol';
import { sha256Hex } from './sha256';

const CELL_TYPES: CellType[] = ['code', 'markdown', 'raw'];
const HIGHLIGHT_CLASS = 'jp-agent-touched';

function shared(panel: NotebookPanel): ISharedNotebook {
  const model = panel.content.model;
  if (!model) {
    throw new ProtocolError('no_model', 'The notebook has no model (it is closing).');
  }
  return model.sharedModel;
}

/** The index of a cell by id (or "cell-N"); throws not_found. */
export function findIndex(nb: ISharedNotebook, cellId: string): number {
  const cells = nb.cells;
  const byId = cells.findIndex(c => c.id === cellId);
  if (byId >= 0) {
    return byId;
  }
  const m = /^cell-(\d+)$/.exec(cellId);
  if (m && Number(m[1]) < cells.length) {
    return Number(m[1]);
  }
  throw new ProtocolError('not_found', `Cell with ID "${cellId}" not found in notebook.`);
}

function language(nb: ISharedNotebook): string {
  const meta = nb.metadata as { [k: string]: any };
  return meta?.language_info?.name ?? meta?.kernelspec?.language ?? 'python';
}

function checkCellType(t: unknown): CellType {
  if (!CELL_TYPES.includes(t as CellType)) {
    throw new ProtocolError('bad_request', `Unknown cell type: ${String(t)}.`);
  }
  return t as CellType;
}

function checkHash(cell: ISharedCell, expected: string | null | undefined): void {
  if (expected && sha256Hex(cell.getSource()) !== expected) {
    throw new ProtocolError(
      'stale_cell',
      `Cell ${cell.id} was changed in the notebook since it was read.`
    );
  }
}

/** Run `edit` as one undo step of its own (not merged with the user's typing). */
function undoable<T>(nb: ISharedNotebook, edit: () => T): T {
  const manager = (nb as any).undoManager;
  manager?.stopCapturing?.();
  let result: T | undefined;
  nb.transact(() => {
    result = edit();
  });
  manager?.stopCapturing?.();
  return result as T;
}

/** Like `undoable`, for edits that make several transactions of their own. */
function undoableSteps(nb: ISharedNotebook, edit: () => void): void {
  const manager = (nb as any).undoManager;
  manager?.stopCapturing?.();
  edit();
  manager?.stopCapturing?.();
}

export function getNotebook(panel: NotebookPanel): IGetNotebookResult {
  return { path: panel.context.path, notebook: shared(panel).toJSON() };
}

export function insertCells(panel: NotebookPanel, args: IInsertCellsArgs): IEditResult {
  const nb = shared(panel);
  if (!Array.isArray(args.cells) || args.cells.length === 0) {
    throw new ProtocolError('bad_request', 'insert_cells needs at least one cell.');
  }
  const index = args.after_cell_id ? findIndex(nb, args.after_cell_id) + 1 : 0;
  const cells = args.cells.map(c => {
    const cell: { [k: string]: unknown } = {
      cell_type: checkCellType(c.cell_type),
      source: String(c.source ?? ''),
      metadata: {}
    };
    if (c.id) {
      cell.id = c.id;
    }
    return cell;
  });
  const created = undoable(nb, () => nb.insertCells(index, cells as any));
  void reveal(panel, index);
  return {
    cell_ids: created.map(c => c.id),
    cell_type: created[0].cell_type as CellType,
    language: language(nb),
    index,
    cell_count: nb.cells.length
  };
}

export function replaceCell(panel: NotebookPanel, args: IReplaceCellArgs): IEditResult {
  const nb = shared(panel);
  const index = findIndex(nb, String(args.cell_id));
  const cell = nb.getCell(index);
  checkHash(cell, args.expected_hash);
  const newType = args.cell_type ? checkCellType(args.cell_type) : (cell.cell_type as CellType);
  const source = String(args.source ?? '');
  undoable(nb, () => {
    if (newType !== cell.cell_type) {
      // A type change is a new cell with the same id (as JupyterLab's own "change cell type").
      const json: { [k: string]: unknown } = {
        id: cell.id,
        cell_type: newType,
        source,
        metadata: cell.getMetadata()
      };
      nb.deleteCell(index);
      nb.insertCell(index, json as any);
    } else {
      cell.setSource(source);
      if (cell.cell_type === 'code') {
        const code = cell as any;
        code.setOutputs([]);
        code.execution_count = null;
      }
    }
  });
  void reveal(panel, index);
  return {
    cell_ids: [nb.getCell(index).id],
    cell_type: newType,
    language: language(nb),
    index,
    cell_count: nb.cells.length
  };
}

export function deleteCells(panel: NotebookPanel, args: IDeleteCellsArgs): IEditResult {
  const nb = shared(panel);
  const ids = Array.isArray(args.cell_ids) ? args.cell_ids.map(String) : [];
  if (ids.length === 0) {
    throw new ProtocolError('bad_request', 'delete_cells needs at least one cell id.');
  }
  const expected = args.expected_hashes ?? {};
  const targets = ids.map(id => nb.getCell(findIndex(nb, id)));
  targets.forEach((cell, i) => checkHash(cell, expected[ids[i]]));
  // Positions and ids read before: inside the one transaction `nb.cells` is not updated (the
  // list follows at its end) and a deleted cell is disposed, its id gone.  The last cell first,
  // so each deletion leaves the positions of the ones still to go where they were.
  const positions = [...new Set(targets.map(c => nb.cells.indexOf(c)))].sort((a, b) => b - a);
  const first = Math.min(...positions);
  const deleted = targets.map(c => c.id);
  undoable(nb, () => {
    for (const index of positions) {
      nb.deleteCell(index);
    }
  });
  return {
    cell_ids: deleted,
    cell_type: null,
    language: language(nb),
    index: first,
    cell_count: nb.cells.length
  };
}

export function moveCells(panel: NotebookPanel, args: IMoveCellsArgs): IEditResult {
  const nb = shared(panel);
  // Real ids up front ("cell-N" names a position, which the moves change); not_found otherwise.
  const realId = (id: string) => nb.getCell(findIndex(nb, id)).id;
  const ids = (Array.isArray(args.cell_ids) ? args.cell_ids.map(String) : []).map(realId);
  const after = args.after_cell_id ? realId(String(args.after_cell_id)) : null;
  if (after && ids.includes(after)) {
    throw new ProtocolError('bad_request', 'Cannot move cells after one of themselves.');
  }
  // One transaction per move: inside a transaction `nb.cells` is not updated, and a moved cell
  // is a new object (the old one disposed), so each move looks its cells up afresh by id.  The
  // undo manager still makes them one undo step.
  undoableSteps(nb, () => {
    for (const [i, id] of ids.entries()) {
      const from = findIndex(nb, id);
      const anchor = i > 0 ? ids[i - 1] : after;
      let to = anchor ? findIndex(nb, anchor) + 1 : 0;
      if (from < to) {
        to -= 1;
      }
      nb.moveCell(from, to);
    }
  });
  const index = ids.length ? findIndex(nb, ids[0]) : 0;
  return { cell_ids: ids, cell_type: null, language: language(nb), index, cell_count: nb.cells.length };
}

export async function executeCells(
  panel: NotebookPanel,
  args: IExecuteCellsArgs
): Promise<IExecuteCellsResult> {
  const nb = shared(panel);
  const ids = Array.isArray(args.cell_ids) ? args.cell_ids.map(String) : [];
  const results = [];
  for (const id of ids) {
    const index = findIndex(nb, id);
    const widget = panel.content.widgets[index];
    if (widget instanceof CodeCell) {
      await CodeCell.execute(widget, panel.sessionContext);
      const model = widget.model;
      results.push({
        cell_id: model.id,
        execution_count: model.executionCount,
        outputs: model.outputs.toJSON() as unknown[]
      });
    } else {
      results.push({ cell_id: nb.getCell(index).id, execution_count: null, outputs: [] });
    }
  }
  return { cells: results };
}

export async function revealCell(panel: NotebookPanel, args: IRevealCellArgs): Promise<object> {
  await reveal(panel, findIndex(shared(panel), String(args.cell_id)));
  return {};
}

/** Scroll to the cell and highlight it briefly; never fails the edit it follows. */
async function reveal(panel: NotebookPanel, index: number): Promise<void> {
  try {
    const widget = panel.content.widgets[index];
    if (!widget) {
      return;
    }
    await panel.content.scrollToItem(index, 'smart');
    widget.addClass(HIGHLIGHT_CLASS);
    window.setTimeout(() => widget.removeClass(HIGHLIGHT_CLASS), 1500);
  } catch (err) {
    console.warn('jupyter-agent: could not reveal cell', err);
  }
}

/** Brings a notebook's tab to the front (set by the plugin: it has the application shell). */
let showPanel: (panel: NotebookPanel) => void = panel => panel.activate();

export function setShowPanel(show: (panel: NotebookPanel) => void): void {
  showPanel = show;
}

const ASK_SELECTOR = '.jupyter-agent-ask';
const RENDER_GRACE_MS = 400; // the card's widgets arrive just before the notice is asked for

/** Is one of the cell's waiting cards on screen (this tab visible, scrolled into view)? */
function askInView(panel: NotebookPanel, cellId: string): boolean {
  if (document.visibilityState !== 'visible' || !panel.isVisible) {
    return false;
  }
  const cell = panel.content.widgets.find(w => w.model.id === cellId);
  const asks = cell ? Array.from(cell.node.querySelectorAll(ASK_SELECTOR)) : [];
  const view = panel.content.node.getBoundingClientRect();
  return asks.some(el => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.bottom > view.top && r.top < view.bottom;
  });
}

/**
 * The agent waits for the user (an approval, a question, a plan) in a cell that may be out of
 * sight: a notification with a Show button, unless the card is on screen (then `id` is null).
 */
export async function notify(panel: NotebookPanel, args: INotifyArgs): Promise<{ id: string | null }> {
  const cellId = String(args.cell_id);
  findIndex(shared(panel), cellId); // not_found when the cell is gone
  await new Promise(resolve => window.setTimeout(resolve, RENDER_GRACE_MS));
  if (askInView(panel, cellId)) {
    return { id: null };
  }
  const id = Notification.warning(String(args.message), {
    autoClose: false,
    actions: [
      {
        label: 'Show',
        callback: () => {
          showPanel(panel);
          const index = panel.content.widgets.findIndex(w => w.model.id === cellId);
          if (index >= 0) {
            void reveal(panel, index).then(() => {
              const ask = panel.content.widgets[index]?.node.querySelector(ASK_SELECTOR);
              ask?.scrollIntoView({ block: 'center' });
            });
          }
        }
      }
    ]
  });
  return { id };
}

export function dismissNotification(_panel: NotebookPanel, args: IDismissNotificationArgs): object {
  Notification.dismiss(String(args.id));
  return {};
}

/** Where a display put back by show_output keeps its id (the kernel replaces it by that id). */
const DISPLAY_KEY = 'jupyter_agent';

/**
 * Put a display in a cell's outputs: the user cleared them while the agent's turn there still
 * runs, so its transcript goes back in (and later its final copy replaces it, by display id).
 */
export function showOutput(panel: NotebookPanel, args: IShowOutputArgs): { index: number } {
  const cellId = String(args.cell_id);
  const index = findIndex(shared(panel), cellId);
  const model = panel.content.widgets[index]?.model;
  if (!model || model.type !== 'code') {
    throw new ProtocolError('bad_request', `Cell "${cellId}" is not a code cell.`);
  }
  if (typeof args.data !== 'object' || args.data === null) {
    throw new ProtocolError('bad_request', 'show_output needs data: a display bundle.');
  }
  const displayId = String(args.display_id);
  const outputs = (model as ICodeCellModel).outputs;
  const output = {
    output_type: 'display_data',
    data: args.data as any,
    metadata: { [DISPLAY_KEY]: { display_id: displayId } }
  };
  for (let i = 0; i < outputs.length; i++) {
    const meta = outputs.get(i).metadata[DISPLAY_KEY] as { display_id?: string } | undefined;
    if (meta?.display_id === displayId) {
      outputs.set(i, output);
      return { index: i };
    }
  }
  return { index: outputs.add(output) - 1 };
}
