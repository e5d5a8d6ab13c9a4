/** The manifest of a plugin a test defines for itself: always on and visible, experimental, of the `test` category. */
import type { PluginManifest } from '../../src/runtime/plugin.ts';

export function testManifest(title: string, summary: string): PluginManifest {
  return {
    title,
    summary,
    whenToUse: ['tests'],
    visibility: 'always',
    stability: 'experimental',
    category: 'test',
    defaultState: 'on',
    dependsOn: [],
  };
}
