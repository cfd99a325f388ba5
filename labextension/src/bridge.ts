/**
 * One comm between the kernel's agent and one open notebook: says hello, then answers
 * every request it is addressed with exactly one response.
 */

import { ICellModel, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { PageConfig } from '@jupyterlab/coreutils';
import { Kernel, KernelMessage } from '@jupyterlab/services';

import * as ops from './ops';
import {
  FEATURES,
  ICellsRemoved,
  IHello,
  IOpenNotebooks,
  IOutputsCleared,
  IRequest,
  PROTOCOL_VERSION,
  ProtocolError,
  Response,
  parseRequest
} from './protocol';

type IOutputAreaModel = ICodeCellModel['outputs'];
type Handler = (panel: NotebookPanel, args: any) => unknown;

/** The notebooks open in this page (set by the plugin: it has the notebook tracker). */
let openPanels: () => NotebookPanel[] = () => [];

export function setOpenPanels(list: () => NotebookPanel[]): void {
  openPanels = list;
}

function openPaths(): string[] {
  return openPanels()
    .filter(panel => !panel.isDisposed)
    .map(panel => panel.context.path);
}

/** The bridges whose comm is open: each tells its kernel which notebooks the page has open. */
const liveBridges = new Set<NotebookBridge>();
let announcing = false;

/** The notebooks open in the page changed (one opened, closed or renamed): every bridge says
 * so, once per change however many signals fired (called by the plugin). */
export function announceOpen(): void {
  if (!announcing) {
    announcing = true;
    setTimeout(() => {
      announcing = false;
      const paths = openPaths();
      liveBridges.forEach(bridge => bridge.sayOpen(paths));
    }, 0);
  }
}

/** Editing ops running on each panel, from any view's bridge: cells they remove are the
 * agent's, not the user's (a panel's own bridge must not report them as deleted). */
const editingPanels = new WeakMap<NotebookPanel, number>();

const HANDLERS: { [op: string]: Handler } = {
  get_notebook: panel => ops.getNotebook(panel),
  insert_cells: ops.insertCells,
  replace_cell: ops.replaceCell,
  delete_cells: ops.deleteCells,
  move_cells: ops.moveCells,
  execute_cells: ops.executeCells,
  reveal_cell: ops.revealCell,
  notify: ops.notify,
  dismiss_notification: ops.dismissNotification,
  show_output: ops.showOutput,
  list_open: () => ({ paths: openPaths() })
};

/** The ops that change the cell list; cells they remove are the agent's, not the user's. */
const EDITING_OPS = new Set(['insert_cells', 'replace_cell', 'delete_cells', 'move_cells']);

function newClientId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export class NotebookBridge {
  readonly clientId = newClientId();
  private known = new Set<string>(); // the cell ids after the last change
  private flushing = false;
  private userRemoved = false;
  private outputsOf = new Map<IOutputAreaModel, ICodeCellModel>(); // the code cells watched
  private cleared = new Set<ICodeCellModel>(); // cells whose outputs emptied since the last flush
  private saidOpen = ''; // the open notebooks this bridge last told its kernel of

  constructor(
    private readonly panel: NotebookPanel,
    private readonly comm: Kernel.IComm
  ) {
    // Not awaited: JupyterLab handles a kernel's messages one after another and waits for a
    // comm handler's promise, so awaiting here would hold back the replies execute_cells needs.
    comm.onMsg = msg => {
      void this.onMessage(msg);
    };
    this.known = this.cellIds();
    const cells = panel.content.model?.cells;
    cells?.changed.connect(this.onCellsChanged, this);
    this.watchOutputs();
    liveBridges.add(this);
    comm.onClose = () => {
      liveBridges.delete(this);
      cells?.changed.disconnect(this.onCellsChanged, this);
      this.unwatchOutputs();
    };
  }

  /** Each code cell's outputs, to hear when the user clears them (see onOutputsChanged). */
  private watchOutputs(): void {
    const cells = this.panel.content.model?.cells;
    const present = new Set<IOutputAreaModel>();
    for (let i = 0; cells && i < cells.length; i++) {
      const cell: ICellModel = cells.get(i);
      if (cell.type !== 'code') {
        continue;
      }
      const outputs = (cell as ICodeCellModel).outputs;
      present.add(outputs);
      if (!this.outputsOf.has(outputs)) {
        this.outputsOf.set(outputs, cell as ICodeCellModel);
        outputs.changed.connect(this.onOutputsChanged, this);
      }
    }
    for (const outputs of [...this.outputsOf.keys()].filter(o => !present.has(o))) {
      outputs.changed.disconnect(this.onOutputsChanged, this);
      this.outputsOf.delete(outputs);
    }
  }

  private unwatchOutputs(): void {
    this.outputsOf.forEach((_, outputs) => outputs.changed.disconnect(this.onOutputsChanged, this));
    this.outputsOf.clear();
  }

  /** A cell's outputs emptied.  Running a cell empties them too: a moment later such a cell is
   * running (or has new outputs) and is not reported; the kernel puts a running turn's
   * transcript back in a cell the user cleared. */
  private onOutputsChanged(outputs: IOutputAreaModel, change: { type: string; oldValues?: unknown[] }): void {
    const cell = this.outputsOf.get(outputs);
    const removed = ['clear', 'remove'].includes(change.type) && (change.oldValues?.length ?? 0) > 0;
    if (this.comm.isDisposed || !cell || !removed || outputs.length > 0) {
      return;
    }
    if (this.cleared.size === 0) {
      setTimeout(() => this.flushCleared(), 0);
    }
    this.cleared.add(cell);
  }

  private flushCleared(): void {
    const ids = [...this.cleared]
      .filter(cell => !cell.isDisposed && cell.executionState !== 'running' && cell.outputs.length === 0)
      .map(cell => cell.id);
    this.cleared.clear();
    if (ids.length > 0) {
      const message: IOutputsCleared = { type: 'outputs_cleared', client_id: this.clientId, cell_ids: ids };
      this.send(message);
    }
  }

  private cellIds(): Set<string> {
    return new Set((this.panel.content.model?.sharedModel.cells ?? []).map(cell => cell.id));
  }

  /** A cell the user deletes may hold a running %agent turn: the kernel stops it.  JupyterLab
   * does not say which cells a removal took (they are disposed), so the ids are compared with
   * the ones before, a moment later: a move (removed, then inserted again with its id) is no
   * deletion, and cells the agent's own edits remove are not reported. */
  private onCellsChanged(_: unknown, change: { type: string }): void {
    if (this.comm.isDisposed) {
      this.panel.content.model?.cells.changed.disconnect(this.onCellsChanged, this);
      return;
    }
    if (change.type === 'remove' && !editingPanels.get(this.panel)) {
      this.userRemoved = true;
    }
    if (!this.flushing) {
      this.flushing = true;
      setTimeout(() => this.flushRemoved(), 0);
    }
  }

  private flushRemoved(): void {
    this.watchOutputs();
    const now = this.cellIds();
    const gone = this.userRemoved ? [...this.known].filter(id => !now.has(id)) : [];
    this.known = now;
    this.flushing = this.userRemoved = false;
    if (gone.length > 0) {
      const message: ICellsRemoved = { type: 'cells_removed', client_id: this.clientId, cell_ids: gone };
      this.send(message);
    }
  }

  sayHello(): void {
    const open = openPaths();
    const hello: IHello = {
      type: 'hello',
      version: PROTOCOL_VERSION,
      client_id: this.clientId,
      path: this.panel.context.path,
      server_root: PageConfig.getOption('serverRoot'),
      features: FEATURES,
      open
    };
    this.saidOpen = JSON.stringify(open);
    this.send(hello);
  }

  /** Tell the kernel which notebooks the page has open, when that is news to it. */
  sayOpen(paths: string[]): void {
    if (this.comm.isDisposed) {
      liveBridges.delete(this);
    } else if (JSON.stringify(paths) !== this.saidOpen) {
      this.saidOpen = JSON.stringify(paths);
      const message: IOpenNotebooks = { type: 'open_notebooks', client_id: this.clientId, paths };
      this.send(message);
    }
  }

  private async onMessage(msg: KernelMessage.ICommMsgMsg): Promise<void> {
    const request = parseRequest(msg.content.data);
    if (request === null) {
      return;
    }
    // Another open view of the same kernel answers requests addressed to it.
    if (request.client_id && request.client_id !== this.clientId) {
      return;
    }
    this.send(await this.answer(request));
  }

  private async answer(request: IRequest): Promise<Response> {
    const handler = HANDLERS[request.op];
    try {
      if (!handler) {
        throw new ProtocolError('unknown_op', `Unknown op: ${request.op}.`);
      }
      const panel = this.target(request);
      const editing = EDITING_OPS.has(request.op) ? 1 : 0; // synchronous handlers: the count spans exactly them
      editingPanels.set(panel, (editingPanels.get(panel) ?? 0) + editing);
      let result: unknown;
      try {
        result = await handler(panel, request.args);
      } finally {
        editingPanels.set(panel, (editingPanels.get(panel) ?? 0) - editing);
      }
      return { type: 'response', id: request.id, ok: true, result };
    } catch (err) {
      const error =
        err instanceof ProtocolError
          ? { name: err.errorName, message: err.message }
          : { name: 'internal' as const, message: String((err as Error)?.message ?? err) };
      return { type: 'response', id: request.id, ok: false, error };
    }
  }

  /** The notebook a request is about: this view's, or another one open in the page (`path`). */
  private target(request: IRequest): NotebookPanel {
    if (request.path === undefined || request.path === this.panel.context.path) {
      return this.panel;
    }
    const panel = openPanels().find(p => p.context.path === request.path && !p.isDisposed);
    if (!panel) {
      throw new ProtocolError('not_open', `The notebook ${request.path} is not open in JupyterLab.`);
    }
    return panel;
  }

  private send(data: object): void {
    if (!this.comm.isDisposed) {
      this.comm.send(data as any);
    }
  }
}
