/**
 * renderMessageContent(content, uiComponents?): a message's content as React
 * nodes — strings as text, component records `{name, props}` through the
 * matching ui component (or the render of the useAgAction of that name),
 * arrays of both in order. An unknown component renders nothing.
 */
import { createElement, Fragment, type ComponentType, type ReactNode } from 'react';
import type { ComponentRecord, MessageContent } from '../../lib/protocol/index.ts';
import type { AgActionDef } from './context.tsx';

export type UiComponents = Record<string, ComponentType<Record<string, unknown>>>;

/** Renders of the actions registered by useAgAction, by name (module-wide: the render is a pure function of its props). */
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
  return null;
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
