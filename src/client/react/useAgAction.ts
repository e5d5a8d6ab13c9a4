/**
 * useAgAction({name, description, parameters, handler, render}): registers an
 * AG-UI action while the component is mounted. useChat advertises it in
 * `agActions` (its JSON Schema, hasRender) and answers the runtime's
 * `action_call` over the socket with the handler's result; render({status,
 * args}) draws the action's component record in renderMessageContent.
 */
import { useEffect, useRef } from 'react';
import { useOraclesContext, type AgActionDef } from './context.tsx';
import { actionRenders } from './render.tsx';

export function useAgAction<A = unknown>(def: AgActionDef<A>): void {
  const { actions } = useOraclesContext();
  const latest = useRef(def);
  latest.current = def;
  const { name, description, parameters } = def;
  const hasRender = !!def.render;
  useEffect(() => {
    const entry: AgActionDef = {
      name,
      description,
      parameters,
      handler: (args) => latest.current.handler(args as A),
      ...(hasRender
        ? { render: (p) => latest.current.render?.(p as Parameters<NonNullable<AgActionDef<A>['render']>>[0]) }
        : {}),
    };
    actions.set(name, entry);
    if (entry.render) actionRenders.set(name, entry.render);
    return () => {
      if (actions.get(name) === entry) actions.delete(name);
      if (actionRenders.get(name) === entry.render) actionRenders.delete(name);
    };
  }, [actions, name, description, parameters, hasRender]);
}
