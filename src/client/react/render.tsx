/**
 * renderMessageContent(content, uiComponents?): a message's content as React
 * nodes — strings as text, component records `{name, props}` through, in
 * order: the app's ui component of that name, the render of the useAgAction
 * of that name, else a default: the `Error` record (a turn's error) as
 * ErrorRow, a tool call as the app's `ToolCall` component or ToolCallRow.
 * Arrays of both in order. Any other record renders nothing.
 */
import { createElement, Fragment, type ComponentType, type ReactNode } from 'react';
import type { ComponentRecord, MessageContent } from '../../lib/protocol/index.ts';
import type { AgActionDef } from './context.tsx';

export type UiComponents = Record<string, ComponentType<Record<string, unknown>>>;

/**
 * Renders of the actions registered by useAgAction, by name (module-wide: the render is a pure function of its props).
 */
export const actionRenders = new Map<string, NonNullable<AgActionDef['render']>>();

function renderRecord(r: ComponentRecord, ui: UiComponents | undefined, key?: number): ReactNode {
  const C = ui?.[r.name];
  if (C)
    return createElement(C, {
      key,
      ...r.props,
      ...(r.props.args && typeof r.props.args === 'object' ? { args: r.props.args } : {}),
    });
  const render = actionRenders.get(r.name);
  if (render) {
    const status = r.props.status === 'done' || r.props.status === 'error' ? r.props.status : 'isRunning';
    return createElement(Fragment, { key }, render({ status, args: r.props.args, output: r.props.output }));
  }
  if (r.name === 'Error') return createElement(ErrorRow, { key, ...r.props });
  if (r.props.isToolCall === true) {
    const props = { key, ...r.props, toolName: typeof r.props.toolName === 'string' ? r.props.toolName : r.name };
    return createElement(ui?.ToolCall ?? ToolCallRow, props);
  }
  return null;
}

function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The default row of a turn's error: its message, as an alert. */
export function ErrorRow(p: Record<string, unknown>): ReactNode {
  const payload = (p.payload ?? {}) as { error?: unknown; code?: unknown };
  const message = text(p.output ?? payload.error) || 'the turn failed';
  return createElement('div', { role: 'alert', 'data-oraclekit': 'error' }, message);
}

/** The default row of a tool call: its name and status, its error when it failed. */
export function ToolCallRow(p: Record<string, unknown>): ReactNode {
  const status = typeof p.status === 'string' ? p.status : 'isRunning';
  const error = (p.payload as { error?: unknown } | undefined)?.error;
  const state = status === 'error' ? `failed: ${text(error ?? p.output)}` : status === 'done' ? 'done' : 'running…';
  return createElement(
    'div',
    { 'data-oraclekit': 'tool-call', 'data-status': status },
    `${text(p.toolName)}: ${state}`,
  );
}

export function renderMessageContent(content: MessageContent, uiComponents?: UiComponents): ReactNode {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c, i) =>
      typeof c === 'string' ? createElement(Fragment, { key: i }, c) : renderRecord(c, uiComponents, i),
    );
  }
  return renderRecord(content, uiComponents);
}
