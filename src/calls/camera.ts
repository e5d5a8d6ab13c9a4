/**
 * The user's camera as the agent sees it (docs/live-agent.md, "Video"): the latest frame of the user's camera track,
 * kept as @livekit/rtc-node decoded it and nothing else done per frame. Only when the model calls look_at_camera is
 * that frame converted to RGBA (by rtc-node), scaled to at most CAMERA_MAX_SIDE pixels on its longer side and encoded
 * as a PNG, which the model receives as an image part of the turn.
 */
import type * as Livekit from '@livekit/rtc-node';
import type { VideoFrame, VideoFrameEvent } from '@livekit/rtc-node';
import { z } from 'zod';
import { defineTool, toolImage, type AnyPluginTool, type ToolImage, type TurnContext } from 'oraclekit/plugin';
import { encodePng } from './image/png.ts';
import { scaleRgbaToRgb } from './image/scale.ts';
import { callsError } from './errors.ts';

/** The longer side of the picture the model receives, in pixels (a larger frame is scaled down, never up). */
const CAMERA_MAX_SIDE = 768;
/**
 * A frame older than this is not shown: a camera on sends frames continuously (a still scene too), so none for this
 * long means it stopped, whatever the signal said.
 */
const MAX_FRAME_AGE_MS = 5000;

export class Camera {
  private readonly rtc: typeof Livekit;
  private latest: VideoFrame | undefined;
  private latestAt = 0;
  private muted = false;
  private refused = false;
  private closed = false;

  constructor(rtc: typeof Livekit) {
    this.rtc = rtc;
  }

  /** Keeps the latest frame of the user's camera until the track ends or the camera closes. */
  async watch(frames: AsyncIterable<VideoFrameEvent>): Promise<void> {
    try {
      for await (const e of frames) {
        if (this.closed) break;
        this.latest = e.frame;
        this.latestAt = performance.now();
      }
    } finally {
      this.latest = undefined;
    }
  }

  /** The user muted (or unmuted) the camera: a muted camera's last frame is not shown. */
  mute(on: boolean): void {
    this.muted = on;
  }

  /** The user's frames do not decrypt with the call's key (or do again): what they decode to is not a picture. */
  refuse(on: boolean): void {
    this.refused = on;
  }

  /** The latest frame as a PNG for the model; a camera_off error when there is none to show. */
  snapshot(): ToolImage {
    const frame = this.latest;
    if (!frame || this.muted || this.refused || this.closed || performance.now() - this.latestAt > MAX_FRAME_AGE_MS)
      throw callsError(
        'camera_off',
        this.refused
          ? "the user's camera cannot be decrypted with the call's key: nothing to look at"
          : "the user's camera is off: there is no picture to look at; ask the user to turn the camera on if needed",
      );
    const rgba = frame.convert(this.rtc.VideoBufferType.RGBA);
    const { rgb, width, height } = scaleRgbaToRgb(rgba.data, rgba.width, rgba.height, CAMERA_MAX_SIDE);
    return toolImage({
      mediaType: 'image/png',
      data: encodePng(rgb, width, height).toString('base64'),
      width,
      height,
      text: `The user's camera, now (${width}×${height} pixels; the camera sends ${frame.width}×${frame.height}).`,
    });
  }

  close(): void {
    this.closed = true;
    this.latest = undefined;
  }
}

/** The tool of a call's turns: the model asks for the camera's current frame. */
export function lookAtCameraTool(cameraOf: (turn: TurnContext) => Promise<Camera | undefined>): AnyPluginTool {
  return defineTool({
    description:
      "Looks through the user's camera during this live call: returns the current frame as an image. Use it only " +
      'when the user asks you to look at something or when seeing them is needed to answer; each call sends one ' +
      'picture to the model provider.',
    inputSchema: z.object({}),
    execute: async (_input, turn) => {
      const camera = await cameraOf(turn);
      if (!camera) throw callsError('camera_off', "the user's camera is off: this call has no video");
      return camera.snapshot();
    },
  });
}
