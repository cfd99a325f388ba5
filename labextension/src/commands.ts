/**
 * Commands that start the agent from a cell: "Fix This Cell with the Agent" (a cell whose last
 * run failed; also a "Fix with the agent" button under each traceback) and "Ask the Agent
 * Below".  Each puts a `%agent` cell below the cell; the kernel loads jupyter_agent first,
 * quietly, so the magic exists even without `%load_ext`.
 */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Cell, ICodeCellModel } from '@jupyterlab/cells';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry, RenderedError } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { IRenderMime } from '@jupyterlab/rendermime';
import type { Message } from '@lumino/messaging';

export const FIX_CELL = 'jupyter-agent:fix-cell';
export const ASK_BELOW = 'jupyter-agent:ask-below';
export const TOGGLE_FIX_BUTTON = 'jupyter-agent:toggle-fix-button';
/** On the body when the setting fixButton is off: the buttons are hidden (CSS), at once. */
const NO_FIX_BUTTON_CLASS = 'jp-agent-no-fix-button';
/** The prompt of a fix: the magic tells the agent the cell it runs in, and the failed cell's
 * source and traceback (handed to the kernel by the quiet helper). */
export const FIX_PROMPT = '%agent fix the error in the cell above';
const ASK_PROMPT = '%agent ';
// load_extension answers (not raises) when a module has no load function, as a module that
// cannot be imported here (None in sys.modules) has not.  This run replaces IPython's record of
// the last execution, so the failure the fix is about is kept for the %agent cell
// (keep_failure): the one the page shows for the chosen cell (CHOSEN, a JSON text decoded in the
// kernel), else the last one.  The helper leaves no name behind.
const LOAD = [
  'def _jupyter_agent_load():',
  '    import json',
  '    shell = get_ipython()',
  "    result = shell.extension_manager.load_extension('jupyter_agent')",
  "    if result not in (None, 'already loaded'):",
  "        raise ImportError(f'jupyter_agent: {result}')",
  '    from jupyter_agent.magics.cell_context import keep_failure',
  '    keep_failure(shell, CHOSEN)',
  'try:',
  '    _jupyter_agent_load()',
  'finally:',
  '    del _jupyter_agent_load'
].join('\n');

/** The helper's code; `chosen`: the failed cell to fix (its id, source and traceback). */
function loadCode(chosen: { [key: string]: string } | null): string {
  // a JSON text inside a Python string literal: JSON's string escapes are Python's too
  const given = chosen === null ? 'None' : `json.loads(${JSON.stringify(JSON.stringify(chosen))})`;
  return LOAD.replace('CHOSEN', () => given); // a function: no "$&"-style patterns in `given`
}

/** What the page shows of a failed cell: its id, source and (first) traceback. */
function failure(cell: Cell): { [key: string]: string } | null {
  const outputs = (cell.model as ICodeCellModel).outputs.toJSON();
  const error = outputs.find(output => output.output_type === 'error') as
    | { ename?: string; evalue?: string; traceback?: string[] }
    | undefined;
  if (!error) {
    return null;
  }
  const traceback = (error.traceback ?? []).join('\n') || `${error.ename}: ${error.evalue}`;
  return { cell_id: cell.model.id, source: cell.model.sharedModel.getSource(), traceback };
}

function failed(cell: Cell | null): boolean {
  return cell?.model.type === 'code' && failure(cell) !== null;
}

/** Load jupyter_agent in the notebook's kernel (nothing happens when it is loaded already). */
async function loadInKernel(panel: NotebookPanel, chosen: { [key: string]: string } | null): Promise<boolean> {
  const kernel = panel.sessionContext.session?.kernel;
  if (!kernel) {
    Notification.error('This notebook has no kernel for the agent to run in: start one first.');
    return false;
  }
  if (kernel.status === 'busy') {
    Notification.info('The kernel is running a cell: the agent starts when it is done.', { autoClose: 6000 });
  }
  const code = loadCode(chosen);
  // not stopped by an error earlier in the queue (a Run All that failed)
  const future = kernel.requestExecute({ code, silent: true, store_history: false, stop_on_error: false });
  const reply = await future.done;
  if (reply.content.status !== 'ok') {
    Notification.error(
      "The agent cannot start in this notebook's kernel: jupyter-agent is not installed in its " +
        'environment (pip install jupyter-agent there), or the kernel is not Python.',
      { autoClose: 10000 }
    );
    return false;
  }
  return true;
}

/** A code cell below the active one with `source`, made the active cell. */
function insertBelow(panel: NotebookPanel, source: string): void {
  const notebook = panel.content;
  NotebookActions.insertBelow(notebook);
  if (notebook.activeCell?.model.type !== 'code') {
    NotebookActions.changeCellType(notebook, 'code');
  }
  notebook.activeCell?.model.sharedModel.setSource(source);
}

const FIX_BUTTON_CLASS = 'jp-agent-fix-button';
const ERROR_RANK = 100; // before JupyterLab's own renderer of tracebacks (110)

function isPython(panel: NotebookPanel): boolean {
  const meta = (panel.content.model?.sharedModel.metadata ?? {}) as { [k: string]: any };
  const language = meta.language_info?.name ?? meta.kernelspec?.language;
  return !language || String(language).toLowerCase() === 'python';
}

/**
 * JupyterLab's rendering of a traceback, with a "Fix with the agent" button under it (only for
 * an error output, not for text a cell wrote to stderr, and only in a Python notebook's cell).
 */
class RenderedErrorWithFix extends RenderedError {
  private button: HTMLButtonElement | null = null;

  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly fix: (cellNode: Element) => void,
    private readonly offered: (cellNode: Element) => boolean
  ) {
    super(options);
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    await super.renderModel(model);
    this.button = null;
    if ((model as { type?: string }).type !== 'error') {
      return; // stderr text of a running cell is rendered by this factory too
    }
    const button = document.createElement('button');
    button.className = FIX_BUTTON_CLASS;
    button.textContent = 'Fix with the agent';
    button.title = 'Add a %agent cell below this cell that asks the agent to fix this error, and run it';
    button.onclick = () => {
      const cell = this.node.closest('.jp-Cell');
      if (cell) {
        this.fix(cell);
      }
    };
    this.button = button;
    this.node.appendChild(button);
    this.showButton();
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    this.showButton();
  }

  /** Only in a notebook cell (not a console or an output view) of a Python notebook. */
  private showButton(): void {
    if (!this.button || !this.isAttached) {
      return;
    }
    const cell = this.node.closest('.jp-Notebook .jp-Cell');
    this.button.hidden = cell === null || !this.offered(cell);
  }
}

export function addCommands(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  palette: ICommandPalette | null,
  rendermime: IRenderMimeRegistry | null
): (panel: NotebookPanel) => void {
  const current = (): NotebookPanel | null => tracker.currentWidget;
  /** The panel and cell a widget node belongs to. */
  const locate = (node: Element | null): { panel: NotebookPanel; cell: Cell } | null => {
    let found: { panel: NotebookPanel; cell: Cell } | null = null;
    tracker.forEach(panel => {
      const cell = panel.content.widgets.find(w => w.node === node);
      found = found ?? (cell ? { panel, cell } : null);
    });
    return found;
  };
  /** The cell a command is about: the one right-clicked (from the context menu), the one whose
   * button was clicked (cellId), else the active one.  It is made the active cell. */
  const target = (args: ReadonlyPartialJSONObject): Cell | null => {
    if (typeof args.cellId === 'string') {
      let cell: Cell | null = null;
      tracker.forEach(panel => {
        cell = cell ?? panel.content.widgets.find(w => w.model.id === args.cellId) ?? null;
      });
      return cell;
    }
    const panel = current();
    if (!panel) {
      return null;
    }
    if (args.fromContextMenu) {
      const node = app.contextMenuHitTest(n => n.classList.contains('jp-Cell'));
      const index = panel.content.widgets.findIndex(w => w.node === node);
      return index >= 0 ? panel.content.widgets[index] : null;
    }
    return panel.content.activeCell;
  };
  const activate = (panel: NotebookPanel, cell: Cell): void => {
    const index = panel.content.widgets.indexOf(cell);
    if (index >= 0 && panel.content.activeCellIndex !== index) {
      panel.content.activeCellIndex = index;
    }
  };

  app.commands.addCommand(FIX_CELL, {
    label: 'Fix This Cell with the Agent',
    caption: 'Add a cell below that asks the agent to fix the error of this cell, and run it',
    isEnabled: args => failed(target(args)),
    isVisible: args => failed(target(args)),
    execute: async args => {
      const cell = target(args);
      const panel = cell ? locate(cell.node)?.panel : null;
      if (!panel || !cell || !failed(cell) || !(await loadInKernel(panel, failure(cell)))) {
        return;
      }
      activate(panel, cell);
      insertBelow(panel, FIX_PROMPT);
      await NotebookActions.run(panel.content, panel.sessionContext);
    }
  });

  app.commands.addCommand(ASK_BELOW, {
    label: 'Ask the Agent Below',
    caption: 'Add a %agent cell below this one, ready for your request',
    isEnabled: args => target(args) !== null,
    execute: async args => {
      const panel = current();
      const cell = target(args);
      if (!panel || !cell || !(await loadInKernel(panel, null))) {
        return;
      }
      activate(panel, cell);
      insertBelow(panel, ASK_PROMPT);
      const notebook = panel.content;
      const added = notebook.activeCell;
      await added?.ready; // its editor exists once the cell is rendered
      notebook.mode = 'edit';
      const editor = added?.editor;
      if (editor) {
        editor.focus();
        editor.setCursorPosition({ line: 0, column: ASK_PROMPT.length });
      }
    }
  });

  const selector = '.jp-Notebook .jp-Cell';
  const args = { fromContextMenu: true };
  app.contextMenu.addItem({ command: FIX_CELL, selector, rank: 0, args });
  app.contextMenu.addItem({ command: ASK_BELOW, selector, rank: 0, args });
  palette?.addItem({ command: FIX_CELL, category: 'Agent' });
  palette?.addItem({ command: ASK_BELOW, category: 'Agent' });

  const errors: IRenderMime.IRendererFactory = {
    safe: true,
    mimeTypes: ['application/vnd.jupyter.stderr'],
    createRenderer: options =>
      new RenderedErrorWithFix(
        options,
        cellNode => {
          const found = locate(cellNode);
          if (found) {
            void app.commands.execute(FIX_CELL, { cellId: found.cell.model.id });
          }
        },
        cellNode => {
          const found = locate(cellNode);
          return found !== null && isPython(found.panel);
        }
      )
  };
  rendermime?.addFactory(errors, ERROR_RANK);
  // notebooks opened before this plugin started have their own copy of the registry
  return panel => panel.content.rendermime.addFactory(errors, ERROR_RANK);
}

/** The setting `fixButton` (Settings › jupyter-agent, or the palette's toggle): shows or hides
 * every "Fix with the agent" button at once. */
export async function followSettings(
  app: JupyterFrontEnd,
  palette: ICommandPalette | null,
  registry: ISettingRegistry,
  pluginId: string
): Promise<void> {
  let settings: ISettingRegistry.ISettings;
  try {
    settings = await registry.load(pluginId);
  } catch (err) {
    console.warn('jupyter-agent: could not load its settings', err);
    return;
  }
  const shown = (): boolean => settings.composite.fixButton !== false;
  const apply = (): void => {
    document.body.classList.toggle(NO_FIX_BUTTON_CLASS, !shown());
    app.commands.notifyCommandChanged(TOGGLE_FIX_BUTTON);
  };
  app.commands.addCommand(TOGGLE_FIX_BUTTON, {
    label: 'Show "Fix with the agent" under Tracebacks',
    isToggled: shown,
    execute: () => settings.set('fixButton', !shown())
  });
  palette?.addItem({ command: TOGGLE_FIX_BUTTON, category: 'Agent' });
  settings.changed.connect(apply);
  apply();
}
