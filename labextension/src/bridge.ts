/**
 * One comm between the kernel's agent and one open notebook: says hello, then answers
 * every request it is addressed with exactly one response.
 */

import { NotebookPanel } from '@jupyterlab/notebook';
import { PageConfig } from '@jupyterlab/coreutils';
import { Kernel, KernelMessage } from '@jupyterlab/services';

import * as ops from './ops';
import { IHello, IRequest, PROTOCOL_VERSION, ProtocolError, Response, parseRequest } from './protocol';

type Handler = (panel: NotebookPanel, args: any) => unknown;

const HANDLERS: { [op: string]: Handler } = {
  get_notebook: panel => ops.getNotebook(panel),
  insert_cells: ops.insertCells,
  replace_cell: ops.replaceCell,
  delete_cells: ops.deleteCells,
  move_cells: ops.moveCells,
  execute_cells: ops.executeCells,
  reveal_cell: ops.revealCell
};

function newClientId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export class NotebookBridge {
  readonly clientId = newClientId();

  constructor(
    private readonly panel: NotebookPanel,
    private readonly comm: Kernel.IComm
  ) {
    // Not awaited: JupyterLab handles a kernel's messages one after another and waits for a
    // comm handler's promise, so awaiting here would hold back the replies execute_cells needs.
    comm.onMsg = msg => {
      void this.onMessage(msg);
    };
  }

  sayHello(): void {
    const hello: IHello = {
      type: 'hello',
      version: PROTOCOL_VERSION,
      client_id: this.clientId,
      path: this.panel.context.path,
      server_root: PageConfig.getOption('serverRoot')
    };
    this.send(hello);
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
      const result = await handler(this.panel, request.args);
      return { type: 'response', id: request.id, ok: true, result };
    } catch (err) {
      const error =
        err instanceof ProtocolError
          ? { name: err.errorName, message: err.message }
          : { name: 'internal' as const, message: String((err as Error)?.message ?? err) };
      return { type: 'response', id: request.id, ok: false, error };
    }
  }

  private send(data: object): void {
    if (!this.comm.isDisposed) {
      this.comm.send(data as any);
    }
  }
}
