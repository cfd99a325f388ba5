/**
 * jupyter-agent labextension: registers the `jupyter_agent.notebook` comm target on the
 * kernel of every open notebook (again after kernel changes), so the in-kernel agent can
 * read and edit the live document instead of the file on disk.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';

import { NotebookBridge } from './bridge';
import { COMM_TARGET } from './protocol';

function register(panel: NotebookPanel, kernel: Kernel.IKernelConnection | null | undefined): void {
  if (!kernel || kernel.isDisposed) {
    return;
  }
  kernel.registerCommTarget(COMM_TARGET, comm => {
    new NotebookBridge(panel, comm).sayHello();
  });
}

function watch(panel: NotebookPanel): void {
  const session = panel.sessionContext;
  void session.ready.then(() => register(panel, session.session?.kernel));
  session.kernelChanged.connect((_, change) => register(panel, change.newValue));
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agent:live-notebook',
  description: 'Lets the jupyter-agent running in the kernel read and edit the open notebook.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker) => {
    tracker.forEach(watch);
    tracker.widgetAdded.connect((_, panel) => watch(panel));
    // JupyterLab undoes cell operations with Z in command mode; the agent's edits are cell
    // operations, so Ctrl/Cmd+Z (and Shift for redo) in command mode undo them too.
    const selector = '.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus';
    app.commands.addKeyBinding({ command: 'notebook:undo-cell-action', keys: ['Accel Z'], selector });
    app.commands.addKeyBinding({ command: 'notebook:redo-cell-action', keys: ['Accel Shift Z'], selector });
  }
};

export default plugin;
