/**
 * Scaling an RGBA picture down to fit a size, to RGB: each output pixel is the mean of the source pixels its area
 * covers (a box filter; the source's share of a pixel at an edge is not weighted, which at the factors of a camera
 * frame, at most a few, is invisible). A picture that already fits keeps its size.
 */

/** The size of a width × height picture scaled to fit `max` on its longer side (never larger, at least 1 × 1). */
export function fitWithin(width: number, height: number, max: number): { width: number; height: number } {
  const f = Math.min(1, max / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * f)), height: Math.max(1, Math.round(height * f)) };
}

/** `rgba` (width × height, 4 bytes a pixel) as RGB at most `max` pixels on its longer side. */
export function scaleRgbaToRgb(
  rgba: Uint8Array,
  width: number,
  height: number,
  max: number,
): { rgb: Uint8Array; width: number; height: number } {
  if (rgba.length < width * height * 4)
    throw new RangeError(`${width}×${height} RGBA pixels are ${width * height * 4} bytes, not ${rgba.length}`);
  const out = fitWithin(width, height, max);
  const rgb = new Uint8Array(out.width * out.height * 3);
  for (let y = 0; y < out.height; y++) {
    const y0 = Math.floor((y * height) / out.height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * height) / out.height));
    for (let x = 0; x < out.width; x++) {
      const x0 = Math.floor((x * width) / out.width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * width) / out.width));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sy = y0; sy < y1; sy++)
        for (let sx = x0; sx < x1; sx++) {
          const i = (sy * width + sx) * 4;
          r += rgba[i]!;
          g += rgba[i + 1]!;
          b += rgba[i + 2]!;
        }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * out.width + x) * 3;
      rgb[o] = Math.round(r / n);
      rgb[o + 1] = Math.round(g / n);
      rgb[o + 2] = Math.round(b / n);
    }
  }
  return { rgb, ...out };
}
