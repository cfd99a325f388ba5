/**
 * jupyter-agent labextension: registers the `jupyter_agent.notebook` comm target on the
 * kernel of every open notebook (again after kernel changes), so the in-kernel agent can
 * read and edit the live document instead of the file on disk.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { Kernel } from '@jupyterlab/services';

import { NotebookBridge, announceOpen, setOpenPanels } from './bridge';
import { addCommands, followSettings } from './commands';
import * as ops from './ops';
import { COMM_TARGET, PROTOCOL_VERSION } from './protocol';

const registered = new WeakMap<NotebookPanel, Kernel.IKernelConnection>();

function register(panel: NotebookPanel, kernel: Kernel.IKernelConnection | null | undefined): void {
  // ready and kernelChanged can both name the same connection: register once per connection
  if (!kernel || kernel.isDisposed || registered.get(panel) === kernel) {
    return;
  }
  registered.set(panel, kernel);
  kernel.registerCommTarget(COMM_TARGET, comm => {
    new NotebookBridge(panel, comm).sayHello();
  });
  void rejoin(panel, kernel);
}

/**
 * The kernel opens its comm once, when the agent first needs the notebook; a page that connects
 * after that (reloaded, or the notebook closed and opened again) never hears of it.  When the
 * kernel has such a comm open, this page opens its own and says hello on it.
 */
async function rejoin(panel: NotebookPanel, kernel: Kernel.IKernelConnection): Promise<void> {
  try {
    const reply = await kernel.requestCommInfo({ target_name: COMM_TARGET });
    const content = reply.content;
    if (content.status !== 'ok' || Object.keys(content.comms).length === 0 || kernel.isDisposed) {
      return; // no agent bridge in this kernel yet: it opens one when it needs the notebook
    }
    const comm = kernel.createComm(COMM_TARGET);
    const bridge = new NotebookBridge(panel, comm);
    // the hello after the kernel has taken the open (JupyterLab >= 4.4 may send comm messages
    // on a subshell, which does not wait for the main shell)
    await comm.open({ protocol: COMM_TARGET, version: PROTOCOL_VERSION }).done;
    if (!comm.isDisposed) {
      bridge.sayHello();
    }
  } catch (err) {
    console.warn('jupyter-agent: could not rejoin the kernel', err);
  }
}

function watch(panel: NotebookPanel): void {
  // the kernels this page talks to hear which notebooks are open (opened, closed, renamed)
  announceOpen();
  panel.disposed.connect(announceOpen);
  panel.context.pathChanged.connect(announceOpen);
  const session = panel.sessionContext;
  void session.ready.then(() => register(panel, session.session?.kernel));
  session.kernelChanged.connect((_, change) => register(panel, change.newValue));
}

const PLUGIN_ID = 'jupyter-agent:live-notebook'; // its settings: schema/live-notebook.json

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'Lets the jupyter-agent in the kernel read, edit and run the notebooks open in JupyterLab; adds Fix with the agent and Ask the Agent Below.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette, IRenderMimeRegistry, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    rendermime: IRenderMimeRegistry | null,
    settings: ISettingRegistry | null
  ) => {
    ops.setShowPanel(panel => app.shell.activateById(panel.id));
    setOpenPanels(() => {
      const panels: NotebookPanel[] = [];
      tracker.forEach(panel => panels.push(panel));
      return panels;
    });
    const withFixButtons = addCommands(app, tracker, palette, rendermime);
    if (settings) {
      void followSettings(app, palette, settings, PLUGIN_ID);
    }
    tracker.forEach(panel => {
      withFixButtons(panel);
      watch(panel);
    });
    tracker.widgetAdded.connect((_, panel) => {
      withFixButtons(panel);
      watch(panel);
    });
    // JupyterLab undoes cell operations with Z in command mode; the agent's edits are cell
    // operations, so Ctrl/Cmd+Z (and Shift for redo) in command mode undo them too.
    const selector = '.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus';
    app.commands.addKeyBinding({ command: 'notebook:undo-cell-action', keys: ['Accel Z'], selector });
    app.commands.addKeyBinding({ command: 'notebook:redo-cell-action', keys: ['Accel Shift Z'], selector });
  }
};

export default plugin;
