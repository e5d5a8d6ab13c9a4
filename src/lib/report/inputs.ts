/**
 * What a project of the verifier's package is built from (`sample report`, `sample check`): its design, commitment,
 * proof, selection.csv, frame and observations as given, the paths as the user gave them, the sources of the
 * supporting data; and the same inputs as the package carries them, so `sample check` can rebuild the project.
 */
import type { Commitment, Proof } from '../selection/records.ts';
import type { Observation } from './observations.ts';

export interface Source {
  label: string;
  citation?: string;
  url?: string;
}

/** "label|citation|url" → a Source. */
export function parseSource(text: string): Source {
  const [label, citation, url] = text.split('|').map((x) => x.trim());
  const s: Source = { label: label || text };
  if (citation) s.citation = citation;
  if (url) s.url = url;
  return s;
}

export interface ProjectInput {
  projectId: string;
  name?: string;
  design: unknown;
  commitment?: Commitment;
  proof?: Proof;
  /** selection.csv: the order and replacements are checked (and shown) without the frame. */
  selectionPath?: string;
  /** The frame: the full verification of `sample verify` too. */
  framePath?: string;
  /**
   * The paths as they were given (on the command line, or as the manifest writes them), for the commands and the
   * recipe: the verifier runs exactly what was run.
   */
  files?: {
    design?: string;
    commitment?: string;
    proof?: string;
    selection?: string;
    frame?: string;
    observations?: string;
    /** The manifest the project came from: its paths are relative to its folder. */
    manifest?: string;
  };
  /** The sha256 of every input file as it was read (carried into the package for `sample check`). */
  inputFiles?: InputFile[];
  /** When the commitment was published (the verifier's trust check). */
  publishedAt?: Date;
  /** A verifier that performed the selection itself: its randomness. */
  seedHex?: string;
  /**
   * includeUndrawn: monitoring observations of frame households that were not drawn count in the figures too (by
   * default only the drawn households do); recorded in the package.
   */
  observations?: { kind: 'baseline' | 'monitoring'; file?: string; values: Observation[]; includeUndrawn?: boolean };
  meanJustification?: string;
  sdCalculation?: string;
  sources?: Source[];
}

/** An input file of a project, as read: its role, its path (relative to the package once written) and sha256. */
export interface InputFile {
  role: 'design' | 'commitment' | 'proof' | 'selection' | 'frame' | 'observations';
  path: string;
  sha256: string;
}

/**
 * What re-deriving the project needs, carried in the package: the design, the commitment (with the chain's public
 * key), the proof (the beacon round with its signature), the observations' rows, the verifier's inputs, and the
 * sha256 of every input file. `sample check` rebuilds the project from these and compares.
 */
export interface PackageInputs {
  design: unknown;
  commitment: Commitment | null;
  proof: Proof | null;
  publishedAt: string | null;
  seedHex: string | null;
  observations: ProjectInput['observations'] | null;
  files: InputFile[];
  shown: ProjectInput['files'] | null;
  meanJustification: string | null;
  sdCalculation: string | null;
  sources: Source[];
  name: string | null;
}
