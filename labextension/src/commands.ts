/**
 * Commands that start the agent from a cell: "Fix This Cell with the Agent" (a cell whose last
 * run failed) and "Ask the Agent Below".  Each puts a `%agent` cell below the active cell; the
 * kernel loads jupyter_agent first, quietly, so the magic exists even without `%load_ext`.
 */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Cell, ICodeCellModel } from '@jupyterlab/cells';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

export const FIX_CELL = 'jupyter-agent:fix-cell';
export const ASK_BELOW = 'jupyter-agent:ask-below';
/** The prompt of a fix: the magic tells the agent the cell it runs in, and the failed cell's
 * traceback when that was the last cell run; the agent reads the notebook for the rest. */
export const FIX_PROMPT = '%agent fix the error in the cell above';
const ASK_PROMPT = '%agent ';
// load_extension answers (not raises) when a module has no load function, as a module that
// cannot be imported here (None in sys.modules) has not.  This run replaces IPython's record of
// the last execution, so the failure the fix is about is kept for the %agent cell
// (keep_failure).  The helper leaves no name behind.
const LOAD = [
  'def _jupyter_agent_load():',
  '    shell = get_ipython()',
  "    result = shell.extension_manager.load_extension('jupyter_agent')",
  "    if result not in (None, 'already loaded'):",
  "        raise ImportError(f'jupyter_agent: {result}')",
  '    from jupyter_agent.magics.cell_context import keep_failure',
  '    keep_failure(shell)',
  'try:',
  '    _jupyter_agent_load()',
  'finally:',
  '    del _jupyter_agent_load'
].join('\n');

function failed(cell: Cell | null): boolean {
  const model = cell?.model;
  if (!model || model.type !== 'code') {
    return false;
  }
  return (model as ICodeCellModel).outputs.toJSON().some(output => output.output_type === 'error');
}

/** Load jupyter_agent in the notebook's kernel (nothing happens when it is loaded already). */
async function loadInKernel(panel: NotebookPanel): Promise<boolean> {
  const kernel = panel.sessionContext.session?.kernel;
  if (!kernel) {
    Notification.error('This notebook has no kernel for the agent to run in: start one first.');
    return false;
  }
  // not stopped by an error earlier in the queue (a Run All that failed)
  const future = kernel.requestExecute({ code: LOAD, silent: true, store_history: false, stop_on_error: false });
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

export function addCommands(app: JupyterFrontEnd, tracker: INotebookTracker, palette: ICommandPalette | null): void {
  const current = (): NotebookPanel | null => tracker.currentWidget;
  /** The cell a command is about: the one right-clicked (from the context menu), else the
   * active one.  A right-click does not make the cell active, so it is made active here. */
  const target = (args: ReadonlyPartialJSONObject): Cell | null => {
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
      const panel = current();
      const cell = target(args);
      if (!panel || !cell || !failed(cell) || !(await loadInKernel(panel))) {
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
      if (!panel || !cell || !(await loadInKernel(panel))) {
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
}
